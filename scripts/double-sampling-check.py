#!/usr/bin/env python3
# An independent recomputation of the catalogue's positions by double
# sampling of the undecided samples (docs/double-sampling.md, "The
# figure by double sampling"), from the documents results/catalog.json stores: the
# subsample's membership hash, the hypergeometric interval of the
# reachable undecided samples given the subsample's size, Wilson's
# interval with continuity correction, and MOVER, written again here
# without the project's code (documents of different subsampling rates
# pool apart, rate by rate, and combine by MOVER, as the catalogue's do:
# seed 4's one in 4 beside seeds 1-3's one in 2; checked against the
# catalogue only with one rate so far, the only kind it has pooled); then what the figure would be once the
# subsample is decided whole, for a few shares of its undecided members
# found reachable, with every undecided sample decided, and with more
# seeds like these (planning, not a result).
#   pip install xxhash   # the xxh3 hash of the subsample's membership
#   scripts/double-sampling-check.py results/catalog.json ID1,ID2,ID3
# The second argument is the pooled documents' ids separated by commas
# (results/8x8-estimate.csv lists them in its `runs` column), or their common prefix
# where it matches one document of each seed; two of one seed are refused,
# as the catalogue pools one a seed. A document of no subsample counts as
# its own first phase with every undecided sample left (one in 1), as the
# catalogue takes it. The exact layers the catalogue
# adds (8x8: to 14 discs, about 1e12 positions) are left out, below the
# digits printed.
import json, math, struct, collections, sys
import xxhash
from math import lgamma, exp, log, sqrt
Z=1.959963984540054
SALT=0x5ab5a3b1e0f00001
def member(seed,discs,index,D):
    return xxhash.xxh3_64_intdigest(struct.pack('<QIQ',seed,discs,index), seed=SALT) & (D-1) == 0
def lchoose(a,b): return lgamma(a+1)-lgamma(b+1)-lgamma(a-b+1)
def hcdf(k,N,K,n):
    lo=max(0,n+K-N); hi=min(n,K)
    if k>=hi: return 1.0
    if k<lo: return 0.0
    return sum(exp(lchoose(K,j)+lchoose(N-K,n-j)-lchoose(N,n)) for j in range(lo,k+1))
def kint(found,m,N):
    if m==0: return (0,N)
    lo_k=None
    for K in range(found, N-(m-found)+1):
        at_least = 1.0 if found==0 else 1-hcdf(found-1,N,K,m)
        if at_least>0.025: lo_k=K; break
    hi_k=found
    for K in range(found, N-(m-found)+1):
        if hcdf(found,N,K,m)>0.025: hi_k=K
    return (lo_k,hi_k)
def wcc(x,n):
    p=x/n; z2=Z*Z
    lo=0.0 if x<=0 else max(0.0,(2*n*p+z2-1-Z*sqrt(max(0,z2-2-1/n+4*p*(n*(1-p)+1))))/(2*(n+z2)))
    hi=1.0 if x>=n else min(1.0,(2*n*p+z2+1+Z*sqrt(max(0,z2+2-1/n+4*p*(n*(1-p)-1))))/(2*(n+z2)))
    return lo,hi
def layer(n,r,groups,c):
    # groups: per subsampling rate D, (u, m, h, left): the first phase's
    # undecided samples, the members, the reachable ones found, the ones
    # left; rates pool apart and combine by MOVER, as the catalogue's do
    lo_c=hi_c=float(r); below=above=0.0
    for u,m,h,left in groups:
        if m==0: klo_p,khi_p=0.0,float(u)
        else: klo_p,khi_p=u*h/m,u*(h+left)/m
        lo_c+=klo_p; hi_c+=khi_p
        klo,_=kint(h,m,u); _,khi=kint(h+left,m,u)
        lg=max(0,klo_p-klo); hg=max(0,khi-khi_p)
        below+=max(lg,hg)**2; above+=hg**2
    wl,_=wcc(lo_c,n); _,wh=wcc(hi_c,n)
    low=lo_c-sqrt(max(0,lo_c-n*wl)**2+below); high=hi_c+sqrt(max(0,n*wh-hi_c)**2+above)
    f=c/n
    return (f*lo_c,f*hi_c,f*max(low,0),f*min(high,max(n,hi_c)))
def total(ls):
    lp=sum(l[0] for l in ls); hp=sum(l[1] for l in ls)
    b=sqrt(sum(max(0,l[0]-l[2])**2 for l in ls)); a=sqrt(sum(max(0,l[3]-l[1])**2 for l in ls))
    return ((lp+hp)/2, max(0,lp-b), hp+a)
c=json.load(open(sys.argv[1]))
# a prefix of the ids, or the ids themselves separated by commas
wanted=sys.argv[2].split(',')
docs=[e for e in c['estimates'] if any(str(e.get('id','')).startswith(w) for w in wanted)]
# the catalogue pools one document a seed (its strongest): two of one seed
# would count its samples twice
seeds=collections.Counter(d['seed'] for d in docs)
if not docs or max(seeds.values())>1:
    sys.exit('error: give one document of each seed (ids, or a prefix that matches one a seed): '
             + (', '.join('seed %d %d times'%(k,v) for k,v in seeds.items() if v>1) or 'none matched'))
# per layer: samples, the first phase's reachable and undecided samples
L=collections.defaultdict(lambda: [0,0,0]); cand={}
# per layer and subsampling rate D: [u, m, h, left]
G=collections.defaultdict(lambda: collections.defaultdict(lambda: [0,0,0,0]))
# per layer and rate D, the listed samples that a subsample of twice the
# rate (one in D/2) adds
wider=collections.defaultdict(collections.Counter)
for d in docs:
    seed=d['seed']; sub=(d.get('resolved') or {}).get('subsample')
    # a document of no subsample is its own first phase with every
    # undecided sample left (one in 1), as the catalogue takes it
    D=sub['one_in'] if sub else 1
    first={l['discs']:l['tally'] for l in sub['first_phase']['layers']} if sub else {l['discs']:l['tally'] for l in d['layers']}
    for l in d['layers']:
        k=l['discs']; t=l['tally']; cand[k]=int(l['candidates'])
        f=first[k]
        left=sum(member(seed,k,u['index'],D) for u in d['undecided_samples'] if u['discs']==k) if D>1 else t['undecided']
        wider[k][D]+=sum(member(seed,k,u['index'],D//2) and not member(seed,k,u['index'],D) for u in d['undecided_samples'] if u['discs']==k) if D>1 else 0
        e=L[k]; e[0]+=t['samples']; e[1]+=f['reachable']; e[2]+=f['undecided']
        g=G[k][max(D,1)]; g[0]+=f['undecided']; g[1]+=f['undecided']-t['undecided']+left; g[2]+=t['reachable']-f['reachable']; g[3]+=left
def groups(k): return [tuple(G[k][D]) for D in sorted(G[k])]
now=total([layer(L[k][0],L[k][1],groups(k),cand[k]) for k in sorted(L)])
print('docs', len(docs), 'now: %.4g (%.4g to %.4g), -%.1f%%/+%.1f%%'%(*now,100*(1-now[1]/now[0]),100*(now[2]/now[0]-1)))
# the subsample's tallies, summed over the layers and the rates above one
# (what the prose quotes)
sm,sh,sl=(sum(g[i] for k in G for D,g in G[k].items() if D>1) for i in (1,2,3))
print('the subsample: %d members, %d decided (%d reachable), %d left; the first phase: %d undecided'
      %(sm,sm-sl,sh,sl,sum(e[2] for e in L.values())))
# projections: every member decided, a share q of the left ones reachable;
# then the subsample of twice the rate (one in D/2), decided whole alike
for q in (0.5, 2/3, 0.8):
    for widen in (False, True):
        ls=[]
        for k in sorted(L):
            n,r=L[k][0],L[k][1]
            # each rate's wider subsample (one in D/2) adds its members as
            # left ones; rates that then meet pool, as the catalogue's do
            byrate=collections.defaultdict(lambda: [0,0,0,0])
            for D,(gu,gm,gh,gl) in G[k].items():
                more=wider[k][D] if widen and D>1 else 0
                g=byrate[D//2 if widen and D>1 else D]
                g[0]+=gu; g[1]+=gm+more; g[2]+=gh; g[3]+=gl+more
            ls.append(layer(n,r,[(gu,gm,gh+round(q*gl),0) for gu,gm,gh,gl in byrate.values()],cand[k]))
        t=total(ls)
        print('%s decided whole, %.2f of its undecided members reachable: %.4g (%.4g to %.4g), -%.1f%%/+%.1f%%'
              %('twice the subsample' if widen else 'the subsample',q,*t,100*(1-t[1]/t[0]),100*(t[2]/t[0]-1)))
# and the floor of this first phase: every undecided sample decided (a
# share q of them reachable), so that only the first phase's sampling
# is left in the interval
for q in (0.5, 2/3, 0.8):
    ls=[]
    for k in sorted(L):
        n,r,u=L[k][0],L[k][1],L[k][2]
        ls.append(layer(n,r+round(q*u),[],cand[k]))
    t=total(ls)
    print('every undecided sample decided, %.2f of them reachable: %.4g (%.4g to %.4g), -%.1f%%/+%.1f%%'
          %(q,*t,100*(1-t[1]/t[0]),100*(t[2]/t[0]-1)))
# and more seeds like these (f times the first phase: its samples,
# reachable and undecided samples scaled alike), with a subsample of one
# in D decided whole, half of its members reachable: the members to
# decide in all, and the figure. A new seed's undecided samples are as
# few as these seeds' only after the resolves these had (the exact
# encoding on every one); after its first run alone they are about three
# times as many (8x8: 1,285 left by generation 7 for three seeds, 427
# after the exact encoding), and its subsample needs to be as much
# denser for the same width
for f in (1, 4/3, 5/3, 2):
    for D in (4, 2, 1):
        if f==1 and D==1:
            continue  # the floor above, at 0.50
        ls=[]; members=0
        for k in sorted(L):
            n,r,u=L[k][0],L[k][1],L[k][2]
            n2,r2,u2=round(n*f),round(r*f),round(u*f)
            m2=round(u2/D); members+=m2
            ls.append(layer(n2,r2,[(u2,m2,round(0.5*m2),0)],cand[k]))
        t=total(ls)
        print('%.2fx the first phase, one in %d decided whole (%d members): %.4g (%.4g to %.4g), -%.1f%%/+%.1f%%'
              %(f,D,members,*t,100*(1-t[1]/t[0]),100*(t[2]/t[0]-1)))
# and a further seed beside these, of e times their first phase (seed 4
# of 8x8 is about 0.8: 2.4 times an average one of seeds 1-3), its own
# subsample of one in 4 decided whole, half of its members reachable, a
# rate of its own: with these documents' members as they are now, and
# with them decided whole (half of those left reachable)
for e in (2/3, 0.8, 1.0):
    for whole in (False, True):
        ls=[]; members=0
        for k in sorted(L):
            n,r,u=L[k][0],L[k][1],L[k][2]
            byrate={D:[gu,gm,gh+(round(0.5*gl) if whole else 0),0 if whole else gl] for D,(gu,gm,gh,gl) in G[k].items()}
            n2,r2,u2=round(n*e),round(r*e),round(u*e)
            m2=round(u2/4); members+=m2
            # the further seed's one in 4 pools with a rate of one in 4 already there
            g=byrate.setdefault(4,[0,0,0,0]); g[0]+=u2; g[1]+=m2; g[2]+=round(0.5*m2)
            ls.append(layer(n+n2,r+r2,[tuple(g) for g in byrate.values()],cand[k]))
        t=total(ls)
        print('a further seed of %.2fx the first phase, one in 4 decided whole (%d members), these %s: %.4g (%.4g to %.4g), -%.1f%%/+%.1f%%'
              %(e,members,'decided whole' if whole else 'as they are',*t,100*(1-t[1]/t[0]),100*(t[2]/t[0]-1)))
