#version 450
// Row norms with shared-memory reductions (norm.glsl).
#include "norm.glsl"
