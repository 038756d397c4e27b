RWStructuredBuffer<float> Out : register(u0);
float Scale = 2.0;
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = i * Scale; }
