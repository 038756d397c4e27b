// HLSL 2021 (the default): a vector `?:` condition and vector `&&` are errors that name
// select()/and() and -HV 2018; a `for` variable used after its loop, and structs of the same
// layout converted implicitly, are errors with a note about HLSL 2018.
struct LinearRGB { float3 rgb; };
struct LinearYCoCg { float3 ycocg; };

float luma(LinearRGB c) { return c.rgb.g; }

RWStructuredBuffer<float3> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex)
{
    float3 v = Out[i];
    float3 a = v > 0 ? v : -v;
    bool3 both = v > 1 && v < 2;
    for (uint k = 0; k < 4; k++) {
        v *= 2;
    }
    Out[i] = v + k;
    LinearYCoCg y = (LinearYCoCg)0;
    Out[i].x = luma(y);
}
