RWStructuredBuffer<float> Outputs[4] : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Outputs[i & 3][i] = 1; }
