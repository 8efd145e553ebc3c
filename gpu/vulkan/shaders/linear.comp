#version 450
// Linear on f32 and bf16 weights (see linear.glsl).
#define NO_QUANT
#include "linear.glsl"
