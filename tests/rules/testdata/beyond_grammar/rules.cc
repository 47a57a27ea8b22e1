// egret test data: forms beyond the HTP rule grammar spelled in this file
// (reported) and inside an included header's macros (not reported).
#include "helpers.h"
#define OFF 0x10
#define AS_INT(x) (int)(x)

DEF_PACKAGE_OPTIMIZATION(EARLY + OFF, Op("Relu", "x"), GT(HALF_DEPTH("x"), 1), "x")
DEF_PACKAGE_OPTIMIZATION(LATE + BIG_OFFSET, Op("Relu", "x"), GT(AS_INT(DIM_DEPTH("x")), 1), "x")
