// egret test data: a rule written through a user macro, with an error in
// the macro's body.
#define FP_RULE(OP)                  \
  DEF_PACKAGE_OPTIMIZATION(EARLY,    \
      Op(OP, "in"),                  \
      LT(DTYPE_OF("in"), 3),         \
      Op(OP, "in"))

FP_RULE("Relu")
