RWStructuredBuffer<float> Out : register(u0);
void write(RWStructuredBuffer<float> buf, uint i) { buf[i] = 1; }
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { write(Out, i); }
