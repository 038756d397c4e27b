RWStructuredBuffer<float> Out : register(u0);
#ifndef GROUP
#define GROUP 64
[numthreads(GROUP, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = 1.0; }
