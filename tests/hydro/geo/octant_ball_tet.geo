// The octant x, y, z >= 0 of the unit ball, tetrahedra: the cut planes x = 0 (attribute 1,
// "x0"), y = 0 (2, "y0"), z = 0 (3, "z0"), the spherical rim (4, "rim").
SetFactory("OpenCASCADE");
DefineConstant[lc = 0.15];
Sphere(1) = {0, 0, 0, 1, 0, Pi / 2, Pi / 2};
Mesh.CharacteristicLengthMax = lc;
e = 1e-6;
x0[] = Surface In BoundingBox{-e, -e, -e, e, 1 + e, 1 + e};
y0[] = Surface In BoundingBox{-e, -e, -e, 1 + e, e, 1 + e};
z0[] = Surface In BoundingBox{-e, -e, -e, 1 + e, 1 + e, e};
rim[] = Abs(Boundary{Volume{1};});
rim[] -= {x0[], y0[], z0[]};
Physical Volume("fluid", 1) = {1};
Physical Surface("x0", 1) = {x0[]};
Physical Surface("y0", 2) = {y0[]};
Physical Surface("z0", 3) = {z0[]};
Physical Surface("rim", 4) = {rim[]};
