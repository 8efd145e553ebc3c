#version 450
// Flash attention (flash.glsl) for head dims up to 32: 32 queries × 32 keys per tile,
// 64 invocations with 4×4 scores and 4 rows × 1 vec4 of the output each.
#define BQ 32
#define BK 32
#define RQ 4
#define RK 4
#define OR 4
#define NV 1
#define DC 32
#define EU 2
#define STAGEV 1
#include "flash.glsl"
