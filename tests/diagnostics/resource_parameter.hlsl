// Buffers are values (parameters, locals, fields; GetDimensions follows them to their
// global), but a texture parameter is refused.
RWStructuredBuffer<float> Data : register(u0);
Texture2D<float> Image : register(t0);
float Sample(Texture2D<float> t, uint2 p) { return t[p]; }
uint Count(RWStructuredBuffer<float> b) {
    uint n, stride;
    b.GetDimensions(n, stride);
    return n;
}
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Data[id.x] = Sample(Image, id.xy) + Count(Data);
}
