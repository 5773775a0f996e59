// A staged chunked flag program whose take_each comes before its put: a
// rank reading its own part where it lies (program.cuh kSelfDirect) would
// read what it has not put (test/Interpreter/program-self-direct.test).
coll.collective @all_gather types [bf16] ranks [2, 4] {
  coll.transform copy packed -> scattered
}
snac.program for @all_gather variant one_shot policy #snac.policy<encoding = flag, slots = 2, band = [65537, 1099511627776], ctas = 0, threads = 0, grain = 0, pdl = true, chunk = 131072> {
^bb0(%r: index, %n: index):
  snac.program_buffer @input input packed sizes row
  snac.program_buffer @output output scattered sizes column
  snac.program_buffer @rx receive scattered sizes column
  %c0 = arith.constant 0 : index
  %e = snac.epoch
  snac.take_each @rx[%e] -> @output
  snac.put @input[%c0] -> @rx[%e] to all
  snac.launch_dependents
}
