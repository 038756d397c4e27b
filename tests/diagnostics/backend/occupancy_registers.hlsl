// wavec: --target gcn --target-occupancy 10
// 28 buffers need 28 argument registers; 10 waves per SIMD on `gcn` leave 24:
// registers bind, and the warning names the values live at the pressure peak.
StructuredBuffer<uint> In0 : register(t0);
StructuredBuffer<uint> In1 : register(t1);
StructuredBuffer<uint> In2 : register(t2);
StructuredBuffer<uint> In3 : register(t3);
StructuredBuffer<uint> In4 : register(t4);
StructuredBuffer<uint> In5 : register(t5);
StructuredBuffer<uint> In6 : register(t6);
StructuredBuffer<uint> In7 : register(t7);
StructuredBuffer<uint> In8 : register(t8);
StructuredBuffer<uint> In9 : register(t9);
StructuredBuffer<uint> In10 : register(t10);
StructuredBuffer<uint> In11 : register(t11);
StructuredBuffer<uint> In12 : register(t12);
StructuredBuffer<uint> In13 : register(t13);
StructuredBuffer<uint> In14 : register(t14);
StructuredBuffer<uint> In15 : register(t15);
StructuredBuffer<uint> In16 : register(t16);
StructuredBuffer<uint> In17 : register(t17);
StructuredBuffer<uint> In18 : register(t18);
StructuredBuffer<uint> In19 : register(t19);
StructuredBuffer<uint> In20 : register(t20);
StructuredBuffer<uint> In21 : register(t21);
StructuredBuffer<uint> In22 : register(t22);
StructuredBuffer<uint> In23 : register(t23);
StructuredBuffer<uint> In24 : register(t24);
StructuredBuffer<uint> In25 : register(t25);
StructuredBuffer<uint> In26 : register(t26);
StructuredBuffer<uint> In27 : register(t27);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    uint s = 0;
    s += In0[i];
    s += In1[i];
    s += In2[i];
    s += In3[i];
    s += In4[i];
    s += In5[i];
    s += In6[i];
    s += In7[i];
    s += In8[i];
    s += In9[i];
    s += In10[i];
    s += In11[i];
    s += In12[i];
    s += In13[i];
    s += In14[i];
    s += In15[i];
    s += In16[i];
    s += In17[i];
    s += In18[i];
    s += In19[i];
    s += In20[i];
    s += In21[i];
    s += In22[i];
    s += In23[i];
    s += In24[i];
    s += In25[i];
    s += In26[i];
    s += In27[i];
    Out[i] = s;
}
