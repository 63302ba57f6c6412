// The quarter of the unit disc x, y >= 0, triangles: the cut planes x = 0 (attribute 1,
// "x0") and y = 0 (2, "y0"), the rim (3, "rim"); a vertex at the centre.
DefineConstant[lc = 0.05];
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {0, 1, 0, lc};
Line(1) = {1, 2};
Circle(2) = {2, 1, 3};
Line(3) = {3, 1};
Curve Loop(1) = {1, 2, 3};
Plane Surface(1) = {1};
Physical Surface("fluid", 1) = {1};
Physical Curve("x0", 1) = {3};
Physical Curve("y0", 2) = {1};
Physical Curve("rim", 3) = {2};
