// Max-pool rules in the style of a QNN op package, calling external shape
// functions egret does not build in. They load with warnings and do not run
// until a plugin implements the functions; qnn_pad_functions.c does
// (README.md, docs/plugins.md):
//
//   egret rules check examples/plugin/maxpool_rules.cc
//   egret rules check examples/plugin/maxpool_rules.cc --plugin <build>/examples/plugin/libegret_qnn_pad_functions.so
//
// "Pads" is the pool's padding: four values top, bottom, left, right (QNN's
// [2, 2] pad tensor, or egret's $Shape form).

// Costs of the ops these rules build, per 128-byte output vector.
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((poolMaxImpl<Tensor>), "PoolMax2d", 16, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((padEdgeImpl<Tensor>), "Pad", 2, RESOURCE_HVX)
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((cropImpl<Tensor>), "Slice_shape", 2, RESOURCE_HVX, IS_COPY)

// A padded pool is an unpadded pool of the input padded explicitly. Edge
// padding (Pad mode 3) repeats a border element, which every window that
// reaches into the padding also covers (pads are smaller than the window), so
// no maximum changes, for any dtype.
DEF_PACKAGE_OPTIMIZATION(
    EARLY + 10,
    Op("PoolMax2d", "In", "Window", "Stride", "Pads"),
    AND(EQ(RANK_OF("In"), 4), EXTERNAL_CONSTRAINT(has_spatial_padding, "Pads")),
    Op("PoolMax2d",
       WITH_SIZE(SHAPEFN_APPLY(pad_total_for_qnn, "In", "Pads"),
                 WITH_TYPE("In",
                           Op("Pad",
                              "In",
                              gen_ConstArr_vals_i32(0, 0,
                                                    CONSTVAL_INT("Pads", 0), CONSTVAL_INT("Pads", 1),
                                                    CONSTVAL_INT("Pads", 2), CONSTVAL_INT("Pads", 3),
                                                    0, 0),
                              gen_ConstScalar_i32(3)))),
       SHAPEFN_APPLY(reshape_hw_to_4d, "Window"),
       SHAPEFN_APPLY(reshape_hw_to_4d, "Stride"),
       gen_Shape(0, 0, 0, 0)))

// The same with the padded input cut out of a larger one: pad twice as much
// on each side, then take the window that starts at the padding's start
// (pad_before_for_qnn) and has the padded input's size (pad_total_for_qnn).
DEF_PACKAGE_OPTIMIZATION(
    EARLY + 11,
    Op("PoolMax2d", "In", "Window", "Stride", "Pads"),
    AND(EQ(RANK_OF("In"), 4), EXTERNAL_CONSTRAINT(has_spatial_padding, "Pads")),
    Op("PoolMax2d",
       WITH_SIZE(SHAPEFN_APPLY(pad_total_for_qnn, "In", "Pads"),
                 WITH_TYPE("In",
                           Op("Slice_shape",
                              WITH_SIZE(gen_Shape(DIM_BATCHES("In"),
                                                  ADD(DIM_HEIGHT("In"),
                                                      MUL(2, ADD(CONSTVAL_INT("Pads", 0),
                                                                 CONSTVAL_INT("Pads", 1)))),
                                                  ADD(DIM_WIDTH("In"),
                                                      MUL(2, ADD(CONSTVAL_INT("Pads", 2),
                                                                 CONSTVAL_INT("Pads", 3)))),
                                                  DIM_DEPTH("In")),
                              WITH_TYPE("In",
                                        Op("Pad",
                                           "In",
                                           gen_ConstArr_vals_i32(
                                               0, 0,
                                               MUL(2, CONSTVAL_INT("Pads", 0)), MUL(2, CONSTVAL_INT("Pads", 1)),
                                               MUL(2, CONSTVAL_INT("Pads", 2)), MUL(2, CONSTVAL_INT("Pads", 3)),
                                               0, 0),
                                           gen_ConstScalar_i32(3)))),
                              SHAPEFN_APPLY(pad_before_for_qnn, "In", "Pads"),
                              SHAPEFN_APPLY(pad_total_for_qnn, "In", "Pads")))),
       "Window",
       "Stride",
       gen_Shape(0, 0, 0, 0)))
