// Unit cube of tetrahedra (-setnumber ends 0: without the physical surface of its ends,
// a mesh with missing boundary faces).
DefineConstant[ends = 1];
DefineConstant[lc = 0.5];
Point(1) = {0, 0, 0, lc};
Point(2) = {1, 0, 0, lc};
Point(3) = {1, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
out[] = Extrude {0, 0, 1} { Surface{1}; };
Physical Volume("body", 1) = {out[1]};
Physical Surface("sides", 1) = {out[2], out[3], out[4], out[5]};
If (ends == 1)
  Physical Surface("ends", 2) = {1, out[0]};
EndIf
