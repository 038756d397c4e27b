// Resource arrays are supported; an unbounded one needs the host's descriptor count
// (--array-size), and a global struct may hold resources but not also data.
RWStructuredBuffer<float> Outputs[] : register(u0);
struct Mixed { RWBuffer<float> buf; float scale; };
Mixed m;
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Outputs[i & 3][i] = m.buf[i] * m.scale; }
