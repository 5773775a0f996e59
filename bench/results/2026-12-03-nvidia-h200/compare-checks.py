#!/usr/bin/env python3
"""Forced times of two `collc-bench --check-table` runs (check.json, one
record per line) compared variant by variant: for every (ranks,
collective, buffers, bytes, variant) both measured, new / old, summarized
by variant and rank count, by variant and size band, and by variant.

usage: compare-checks.py OLD/check.json NEW/check.json
"""
import json,statistics,collections,sys
def load(p):
    out={}
    for line in open(p):
        r=json.loads(line)
        for v,us in r['forced_us'].items():
            out[(r['nranks'],r['collective'],r['buffers'],r['bytes'],v)]=us
    return out
a=load(sys.argv[1]); b=load(sys.argv[2])
g=collections.defaultdict(list)
for k,us in b.items():
    if k in a and a[k]>0:
        n,c,buf,by,v=k
        fam=v.split(':')[0]+':'+v.split(':')[1] if ':' in v else v
        band='<64K' if by<65536 else ('<4M' if by<4<<20 else '>=4M')
        g[(v,n)].append(us/a[k]); g[(v,band)].append(us/a[k]); g[(v,'all')].append(us/a[k])
for k in sorted(g, key=lambda x:(x[0],str(x[1]))):
    x=g[k]; print(f"{k[0]:15s} {str(k[1]):6s} n={len(x):4d} median {statistics.median(x):.3f} min {min(x):.3f} max {max(x):.3f}")
