// Errors inside macro expansions point into this file: at the macro's use
// for tokens written by egret's prelude, at the spelling for tokens written
// by this file's own macros (each with an "in expansion of macro" note).
#define BAD_CHECK(x) GT(DTYPE_OF(x), 1)

DEF_PACKAGE_OPTIMIZATION(EARLY,
  Op("Relu", "x"),
  // expected-error@+1:7 {{the first operand of AND must be a bool, not a size}}
  AND(TILE_HEIGHT,
      // expected-error@+1:21 {{operand tag "nope" does not appear in the match}}
      IS_QUANT_TYPE("nope"),
      // expected-error@4:22 {{dtype values can only be compared with EQ and NE, not GT}}
      BAD_CHECK("x")),
  "x")
