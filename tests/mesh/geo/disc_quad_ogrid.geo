// Unit disc of quadrilaterals for the rigid-rotation convergence study
// (tests/verification/verify.py rotation --gmsh): an O-grid of a core square of
// half-width 0.4 and four blocks out to the circle, N x N transfinite quadrilaterals per
// block (5 N^2 zones). Each level is meshed anew, so the nodes of the rim lie on the circle:
//   gmsh -2 -order 2 -setnumber N 4 disc_quad_ogrid.geo -o disc.msh   (curved)
//   gmsh -2 -order 1 -setnumber N 4 disc_quad_ogrid.geo -o disc.msh   (straight twin)
// Physical groups: the zones "gas" (attribute 1), the circle "rim" (attribute 4).
DefineConstant[N = 2];
a = 0.4;
r = Sqrt(0.5);
Point(1) = {0, 0, 0};
Point(2) = {a, -a, 0};
Point(3) = {a, a, 0};
Point(4) = {-a, a, 0};
Point(5) = {-a, -a, 0};
Point(6) = {r, -r, 0};
Point(7) = {r, r, 0};
Point(8) = {-r, r, 0};
Point(9) = {-r, -r, 0};
Line(1) = {2, 3};
Line(2) = {3, 4};
Line(3) = {4, 5};
Line(4) = {5, 2};
Circle(5) = {6, 1, 7};
Circle(6) = {7, 1, 8};
Circle(7) = {8, 1, 9};
Circle(8) = {9, 1, 6};
Line(9) = {2, 6};
Line(10) = {3, 7};
Line(11) = {4, 8};
Line(12) = {5, 9};
Curve Loop(1) = {1, 2, 3, 4};
Curve Loop(2) = {9, 5, -10, -1};
Curve Loop(3) = {10, 6, -11, -2};
Curve Loop(4) = {11, 7, -12, -3};
Curve Loop(5) = {12, 8, -9, -4};
For s In {1:5}
  Plane Surface(s) = {s};
EndFor
Transfinite Curve{1:12} = N + 1;
Transfinite Surface{1:5};
Recombine Surface{1:5};
Physical Surface("gas", 1) = {1:5};
Physical Curve("rim", 4) = {5:8};
