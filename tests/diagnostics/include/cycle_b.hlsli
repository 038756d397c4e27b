#include "cycle_a.hlsli"
