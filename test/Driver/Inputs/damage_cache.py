# Damages every entry of a kernel cache directory, for cache.test:
#   damage_cache.py flip DIR      inverts the middle byte (in the payload)
#   damage_cache.py truncate DIR  cuts each file to two thirds
import glob
import os
import sys

mode, root = sys.argv[1], sys.argv[2]
paths = glob.glob(os.path.join(root, "*", "*.bookc"))
if not paths:
    sys.exit("no cache entry under " + root)
for path in paths:
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        if mode == "flip":
            data[len(data) // 2] ^= 0xFF
        elif mode == "truncate":
            data = data[: len(data) * 2 // 3]
        else:
            sys.exit("unknown mode " + mode)
        f.seek(0)
        f.truncate()
        f.write(data)
