#define N 3
#if N * 2 == 6 && defined(N) && !defined M
yes
#elif 1/0
no
#else
no
#endif
#ifdef N
#if 0
don't
#endif
#endif
#if (1 ? 2 : 3) << 2 == 8 && 'a' == 97 && -1 < 0u
x
#endif
