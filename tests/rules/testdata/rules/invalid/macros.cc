// Errors inside macro expansions point at the macro's use in this file, for
// tokens written by egret's prelude and by this file's own macros alike (each
// with an "expanded from macro" note at the spelling in the macro's body).
#define BAD_CHECK(x) GT(DTYPE_OF(x), 1)

DEF_PACKAGE_OPTIMIZATION(EARLY,
  Op("Relu", "x"),
  // expected-error@+1:7 {{the first operand of AND must be a bool, not a size}}
  AND(TILE_HEIGHT,
      // expected-error@+1:21 {{operand tag "nope" does not appear in the match}}
      IS_QUANT_TYPE("nope"),
      // expected-error@+1:7 {{dtype values can only be compared with EQ and NE, not GT}}
      BAD_CHECK("x")),
  "x")
