# tree-producer.py MARK: lines of text on stdout, at a pace: the first
# 2000 at once, then one per millisecond; MARK is created after the first
# 2000, when the pipeline it feeds has data in flight.
import sys
import time

out = sys.stdout
for i in range(5000):
    out.write("line %d of the producer, some text to fill the pipes\n" % i)
    if i == 1999:
        out.flush()
        open(sys.argv[1], "w").close()
    if i >= 2000:
        out.flush()
        time.sleep(0.001)
