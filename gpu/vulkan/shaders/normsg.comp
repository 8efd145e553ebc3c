#version 450
// Row norms with subgroup reductions (norm.glsl), for devices with subgroup arithmetic.
#define SUBGROUP
#include "norm.glsl"
