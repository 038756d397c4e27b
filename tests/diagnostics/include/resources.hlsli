#pragma once
// Resources shared by the kernels.
RWStructuredBuffer<float> Output : register(t0);
