#define F(a, b) (a * b)
#define V(f, ...) f(__VA_ARGS__)
#define E(fmt, ...) g(fmt, ##__VA_ARGS__)
#define O(a, ...) k(a __VA_OPT__(,) __VA_ARGS__)
#define S(x) #x
#define P(a, b) a ## b
#define foo foo bar
F(1, 2) V(g, 1, (2, 3)) E(1) E(1, 2) O(1) S(a "b" 'c') P(x, y) foo
#undef F
F(1)
