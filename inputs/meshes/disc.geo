// Unit disc, unstructured straight-sided quadrilaterals (Sedov on a disc).
// gmsh -2 inputs/meshes/disc.geo -format msh2 -o /tmp/disc.msh
// tools/gmsh_to_mfem.py /tmp/disc.msh inputs/meshes/disc_quad.mesh --comment "..."
h = 0.1;
Point(1) = {0, 0, 0, h};
Point(2) = {1, 0, 0, h};
Point(3) = {0, 1, 0, h};
Point(4) = {-1, 0, 0, h};
Point(5) = {0, -1, 0, h};
Circle(1) = {2, 1, 3};
Circle(2) = {3, 1, 4};
Circle(3) = {4, 1, 5};
Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("rim", 4) = {1, 2, 3, 4};
Physical Surface("gas", 1) = {1};
Mesh.RecombineAll = 1;
Mesh.ElementOrder = 1;
