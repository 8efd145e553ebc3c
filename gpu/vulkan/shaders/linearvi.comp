#version 450
// Linear on bf16 weights with vector loads over whole tiles (no bounds checks; see linearv.glsl).
#define INTERIOR
#include "linearv.glsl"
