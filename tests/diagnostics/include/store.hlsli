#pragma once
// STORE(i, v): writes v scaled by the gain.
#define STORE(i, v) Out[i] = (v) * gain
