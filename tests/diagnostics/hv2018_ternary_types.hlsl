// -HV 2018
// HLSL 2018 `?:`: a vector condition must match the shape of the values, and a struct or
// array needs a scalar condition; branches of unrelated struct types do not combine (E0214,
// E0204).
struct A { float x; };
struct B { float x; float y; };
RWStructuredBuffer<float> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint i : SV_GroupIndex)
{
    A a = (A)1;
    B b = (B)2;
    bool2 c2 = bool2(i > 1, i > 2);
    float3 v3 = c2 ? float3(1, 2, 3) : float3(4, 5, 6);
    A s = c2 ? a : a;
    A t = i > 3 ? a : b;
    Out[i] = v3.x + s.x + t.x;
}
