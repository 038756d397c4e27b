#include "cycle_b.hlsli"
