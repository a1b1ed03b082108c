# Probe (issue 50): each sample a resolve's progress file has decided, with its verdict and
# position (read from the document resolved), one a line: layer, index, verdict, position.
#   python3 probes/progress_samples.py DIR/resolve-ID.progress DOCUMENT.json
# The file's format: docs/long-runs.md, "The resolve's progress file" (checksums not checked
# here: `othello-census inspect` does that).
import struct,sys,json
def read(path):
    b=open(path,'rb').read()
    assert b[:8]==b'OTHRSLV\0', b[:8]
    off=16
    tag=b[off:off+4]; n=struct.unpack_from('<Q',b,off+4)[0]; p=b[off+12:off+12+n]
    assert tag==b'HEAD'
    i=0
    _id,count=struct.unpack_from('<QQ',p,i); i+=16
    out=[]
    for _ in range(count):
        layer,index,term=struct.unpack_from('<IQB',p,i); i+=13
        t=struct.unpack_from('<20Q',p,i); i+=160
        out.append((layer,index,term,t))
    return out
if __name__=='__main__':
    prog,doc=sys.argv[1],sys.argv[2]
    d=json.load(open(doc))
    pos={(u['discs'],u['index']):u['position'] for u in d['undecided_samples']}
    for layer,index,term,t in read(prog):
        # t: samples joined reachable unreachable undecided terminal undecided_terminal orbit*3 nodes relaxed exact_reachable exact_unreachable ...
        v='reachable' if t[2] else ('unreachable' if t[3] else 'undecided')
        print(layer,index,v,pos.get((layer,index),'?'),sep='\t')
