# Make the .msh files of test_mesh_gmsh (and the Sedov run on a .msh) from geo/*.geo with
# gmsh: every mesh in the four variants (formats 2.2 and 4.1, ASCII and binary), the
# straight-sided meshes at orders 1 to 4, and the refused and special cases.
# cmake -DGMSH=... -DGEO=<tests/mesh/geo> -DOUT=<folder> -P gmsh_meshes.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
function(gmsh_run out geo dim)
  execute_process(COMMAND ${GMSH} -${dim} ${ARGN} ${GEO}/${geo}.geo -o ${OUT}/${out}.msh
                  RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${OUT}/${out}.msh)
    message(FATAL_ERROR "gmsh failed (${rc}) on ${geo}.geo -> ${out}.msh:\n${log}")
  endif()
endfunction()
foreach(c disc_tri:2:2 disc_quad:2:1 quarter_cylinder_hex:3:1 box_tet:3:1 mixed_square:2:1)
  string(REPLACE ":" ";" c ${c})
  list(GET c 0 name)
  list(GET c 1 dim)
  list(GET c 2 order)
  gmsh_run(${name}_v22a ${name} ${dim} -order ${order} -format msh22)
  gmsh_run(${name}_v22b ${name} ${dim} -order ${order} -format msh22 -bin)
  gmsh_run(${name}_v41a ${name} ${dim} -order ${order} -format msh41)
  gmsh_run(${name}_v41b ${name} ${dim} -order ${order} -format msh41 -bin)
endforeach()
foreach(p 1 2 3 4)
  gmsh_run(mixed_square_p${p} mixed_square 2 -order ${p} -format msh41 -bin)
  gmsh_run(box_tet_p${p} box_tet 3 -order ${p} -format msh22)
  gmsh_run(box_hex_p${p} box_hex 3 -order ${p} -format msh41)
endforeach()
# Curved simplices: the quadratic disc at two finer sizes, its straight twin (the same
# vertices), a quadratic ball of tetrahedra.
gmsh_run(disc_tri_o2_h1 disc_tri 2 -order 2 -setnumber lc 0.175 -format msh41)
gmsh_run(disc_tri_o2_h2 disc_tri 2 -order 2 -setnumber lc 0.0875 -format msh41)
gmsh_run(disc_tri_o1 disc_tri 2 -order 1 -format msh41)
gmsh_run(ball_tet_o2 ball_tet 3 -order 2 -format msh41)
# A disc of quadrilaterals (upper half) and triangles (lower half), quadratic and straight.
gmsh_run(disc_mixed_o2 disc_mixed 2 -order 2 -format msh41)
gmsh_run(disc_mixed_o1 disc_mixed 2 -order 1 -format msh41)
gmsh_run(square_cw square_cw 2 -format msh41)
gmsh_run(mixed_square_serendipity mixed_square 2 -order 2 -format msh41
         -setnumber Mesh.SecondOrderIncomplete 1)
gmsh_run(box_tet_nobdr box_tet 3 -format msh22 -setnumber ends 0)
file(GLOB made ${OUT}/*.msh)
list(LENGTH made n)
message(STATUS "gmsh made ${n} .msh files in ${OUT}")
