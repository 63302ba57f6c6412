// Quarter cylinder r <= 1, 0 <= theta <= pi/2, 0 <= z <= 0.5 of hexahedra:
// a recombined quarter disc extruded in layers.
DefineConstant[n = 5];
a = 0.45;
r = Sqrt(0.5);
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {r, r, 0};
Point(4) = {0, 1, 0};
Point(5) = {a, 0, 0};
Point(6) = {a, a, 0};
Point(7) = {0, a, 0};
Line(1) = {1, 5};
Line(2) = {5, 6};
Line(3) = {6, 7};
Line(4) = {7, 1};
Line(5) = {5, 2};
Circle(6) = {2, 1, 3};
Line(7) = {3, 6};
Circle(8) = {3, 1, 4};
Line(9) = {4, 7};
Curve Loop(1) = {1, 2, 3, 4};
Curve Loop(2) = {5, 6, 7, -2};
Curve Loop(3) = {-7, 8, 9, -3};
For s In {1:3}
  Plane Surface(s) = {s};
EndFor
Transfinite Curve{1:9} = n;
Transfinite Surface{1:3};
Recombine Surface{1:3};
out[] = Extrude {0, 0, 0.5} { Surface{1:3}; Layers{3}; Recombine; };
// out[]: for each surface: top, volume, then the lateral surfaces of its curve loop.
Physical Volume("solid", 2) = {out[1], out[7], out[13]};
Physical Surface("bottom", 1) = {1, 2, 3};
Physical Surface("top", 2) = {out[0], out[6], out[12]};
Physical Surface("symmetry", 3) = {out[2], out[5], out[8], out[16]};
Physical Surface("outer", 4) = {out[9], out[15]};
