#version 450
// Linear for at most 8 rows on f32 and bf16 weights (see linearsmall.glsl).
#define NO_QUANT
#include "linearsmall.glsl"
