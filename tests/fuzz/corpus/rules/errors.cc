#define F(a, a) a
#define G(x) #y
#define H ## x
#if
#endif
#else
#if 1 +
#endif
#define K(x) x
K(1, 2)
K(
