#ifndef B_H
#define B_H
sdk_b
#define B B_VALUE
#endif  // B_H
