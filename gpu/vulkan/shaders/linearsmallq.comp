#version 450
// Linear for at most 8 rows on quantized weights (see linearsmall.glsl, quant.glsl).
#include "linearsmall.glsl"
