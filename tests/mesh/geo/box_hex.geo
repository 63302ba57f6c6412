// The box [0,1] x [0,1] x [0,0.75] of 3 x 2 x 2 hexahedra, sheared in x so that the
// zones are parallelepipeds, not cubes (the node-order test then sees every axis).
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {1.3, 1, 0};
Point(4) = {0.3, 1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 4;
Transfinite Curve{2, 4} = 3;
Transfinite Surface{1};
Recombine Surface{1};
out[] = Extrude {0.2, 0, 0.75} { Surface{1}; Layers{2}; Recombine; };
Physical Volume("box", 1) = {out[1]};
Physical Surface("walls", 1) = {1, out[0], out[2], out[3], out[4], out[5]};
