// A header of a user's op package: helper macros of its own.
#pragma once

#define IS_MY_SMALL(x) LE(DIM_DEPTH(x), 32)
#define MY_RELU_IMPL(T) (reluImpl<T, MyTensorLayout>)
#define MY_SPLIT(tag, body) AUTOSPLIT(1, tag, TILE_HEIGHT, body)
