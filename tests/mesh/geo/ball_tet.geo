// Unit ball of tetrahedra (the .msh is made at test time with -order 2: curved tets).
SetFactory("OpenCASCADE");
DefineConstant[lc = 0.6];
Sphere(1) = {0, 0, 0, 1};
Mesh.CharacteristicLengthMax = lc;
Physical Volume("fluid", 1) = {1};
Physical Surface("rim", 2) = {1};
