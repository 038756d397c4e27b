// limits.hlsli: the limits of HLSL's 32-bit scalar types, as macros (the
// dialect has no `static const` globals yet). `#include <limits.hlsli>`.
#pragma once

#define FLT_MAX 3.402823466e+38f
#define FLT_MIN 1.175494351e-38f
#define FLT_EPSILON 1.192092896e-07f

#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 0xffffffffu
