R"x(raw \ " string)x" u8"a" L'b' 1.5e-3f 0x1Fu 010 1'000 a::b->c %:%: <::x
/* block
   comment */ line \
continued
"unterminated
