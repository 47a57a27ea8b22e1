// egret test data: a header whose macros use forms beyond the HTP rule
// grammar (as the SDK's headers do); their uses are not reported.
#define HALF_DEPTH(x) DIV(DIM_DEPTH(x), (int)2)
#define BIG_OFFSET 0x10
