#version 450
// Linear on bf16 weights with vector loads and bounds checks (the edges; see linearv.glsl).
#include "linearv.glsl"
