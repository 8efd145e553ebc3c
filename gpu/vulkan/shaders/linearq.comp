#version 450
// Linear on quantized weights: linear.glsl with the block decoders of quant.glsl (apart, so
// that the f32 and bf16 kernels do not carry them).
#include "linear.glsl"
