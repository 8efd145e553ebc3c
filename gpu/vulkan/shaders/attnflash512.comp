#version 450
// Flash attention (flash.glsl) for head dims up to 512 (the VAE): 32 queries × 32 keys per tile,
// 256 invocations with 2×2 scores and 4 rows × 4 vec4 of the output each.
#define BQ 32
#define BK 32
#define RQ 2
#define RK 2
#define OR 4
#define NV 4
#define DC 64
#define EU 8
#define STAGEV 0
#include "flash.glsl"
