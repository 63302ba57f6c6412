// The unit square of triangles meshed with its surface normal along -z: every triangle
// is clockwise in the xy plane (the reader turns all of them over).
DefineConstant[lc = 0.4];
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {1, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {-4, -3, -2, -1};
Plane Surface(1) = {1};
Physical Surface("square", 1) = {1};
Physical Curve("walls", 1) = {1, 2, 3, 4};
