//! The error catalogue: invalid schemas in every syntax, each compiled by
//! the vendored protoc and by fastrs-compiler in the same test. Both must
//! reject it, and the first error must be at the same `file:line:column`
//! (the wording may differ; both are printed when they disagree).
//!
//! A case is one or more files: the first is compiled, the others follow
//! `==> name.proto` lines.

use std::path::Path;
use std::process::Command;

const CASES: &[(&str, &str)] = &[
    // Syntax errors, caught by the parser.
    ("missing semicolon", "syntax = \"proto3\";\nmessage A {\n  int32 a = 1\n}\n"),
    ("missing equals", "syntax = \"proto2\";\nmessage A {\n  optional int32 a 1;\n}\n"),
    ("field number not a number", "syntax = \"proto3\";\nmessage A { int32 a = x; }\n"),
    ("message not closed", "syntax = \"proto3\";\nmessage A {\n  int32 a = 1;\n"),
    ("unknown syntax", "syntax = \"proto4\";\n"),
    ("unknown edition", "edition = \"2025\";\n"),
    ("top-level garbage", "syntax = \"proto3\";\nfoo bar;\n"),
    ("string across lines", "syntax = \"proto3\";\noption java_package = \"a\nb\";\n"),
    ("bad escape", "syntax = \"proto3\";\noption java_package = \"a\\qb\";\n"),
    ("comment not closed", "syntax = \"proto3\";\n/* never closed\nmessage A {}\n"),
    ("proto2 field without label", "syntax = \"proto2\";\nmessage A {\n  int32 a = 1;\n}\n"),
    ("editions optional label", "edition = \"2023\";\nmessage A {\n  optional int32 a = 1;\n}\n"),
    ("editions required label", "edition = \"2023\";\nmessage A {\n  required int32 a = 1;\n}\n"),
    ("editions group", "edition = \"2023\";\nmessage A {\n  repeated group G = 1 {}\n}\n"),
    ("group name in lower case", "syntax = \"proto2\";\nmessage A {\n  optional group g = 1 {}\n}\n"),
    ("map in oneof", "syntax = \"proto3\";\nmessage A {\n  oneof o {\n    map<string, int32> m = 1;\n  }\n}\n"),
    ("map with label", "syntax = \"proto2\";\nmessage A {\n  repeated map<string, int32> m = 1;\n}\n"),
    ("label in oneof", "syntax = \"proto2\";\nmessage A {\n  oneof o {\n    optional int32 a = 1;\n  }\n}\n"),
    ("field number too large to parse", "syntax = \"proto3\";\nmessage A { int32 a = 2147483648; }\n"),
    ("minus before string", "syntax = \"proto3\";\noption java_package = -\"a\";\n"),
    ("weak import in 2024", "edition = \"2024\";\nimport weak \"b.proto\";\n==> b.proto\nedition = \"2024\";\n"),
    ("option import before 2024", "edition = \"2023\";\nimport option \"b.proto\";\n==> b.proto\nedition = \"2023\";\n"),
    ("export in 2023", "edition = \"2023\";\nexport message A {}\n"),
    ("reserved identifier in proto3", "syntax = \"proto3\";\nmessage A {\n  reserved foo;\n}\n"),
    ("reserved string in editions", "edition = \"2023\";\nmessage A {\n  reserved \"foo\";\n}\n"),
    ("extension range at int32 max", "syntax = \"proto2\";\nmessage A {\n  extensions 2147483647;\n}\n"),
    ("two packages", "syntax = \"proto3\";\npackage a;\npackage b;\n"),
    ("map_entry written", "syntax = \"proto3\";\nmessage A {\n  option map_entry = true;\n}\n"),
    ("allow_alias false", "syntax = \"proto3\";\nenum E {\n  option allow_alias = false;\n  A = 0;\n}\n"),
    ("allow_alias unused", "syntax = \"proto3\";\nenum E {\n  option allow_alias = true;\n  A = 0;\n  B = 1;\n}\n"),
    ("obsolete type in unstable", "edition = \"UNSTABLE\";\nmessage A {\n  sint32 a = 1;\n}\n"),
    ("group without body", "syntax = \"proto2\";\nmessage A {\n  optional group G = 1;\n}\n"),
    ("empty oneof", "syntax = \"proto3\";\nmessage A {\n  oneof o {}\n}\n"),
    ("bool default not a bool", "syntax = \"proto2\";\nmessage A {\n  optional bool b = 1 [default = 1];\n}\n"),
    ("int32 default out of range", "syntax = \"proto2\";\nmessage A {\n  optional int32 a = 1 [default = 3000000000];\n}\n"),
    ("unsigned default negative", "syntax = \"proto2\";\nmessage A {\n  optional uint32 a = 1 [default = -1];\n}\n"),
    ("default set twice", "syntax = \"proto2\";\nmessage A {\n  optional int32 a = 1 [default = 1, default = 2];\n}\n"),
    ("message default", "syntax = \"proto2\";\nmessage A {\n  optional A a = 1 [default = 1];\n}\n"),
    (
        "too deep",
        "syntax = \"proto3\";\nmessage M1 { message M2 { message M3 { message M4 { message M5 { message M6 { message M7 { message M8 { message M9 { message M10 { message M11 { message M12 { message M13 { message M14 { message M15 { message M16 { message M17 { message M18 { message M19 { message M20 { message M21 { message M22 { message M23 { message M24 { message M25 { message M26 { message M27 { message M28 { message M29 { message M30 { message M31 { message M32 {} } } } } } } } } } } } } } } } } } } } } } } } } } } } } } } }\n",
    ),
    // Names.
    ("unresolved type", "syntax = \"proto3\";\nmessage A {\n  Missing m = 1;\n}\n"),
    (
        "innermost scope",
        "syntax = \"proto3\";\npackage p;\nmessage Foo { message Bar {} }\nmessage A {\n  message Foo {}\n  Foo.Bar b = 1;\n}\n",
    ),
    (
        "not imported",
        "syntax = \"proto3\";\nimport \"b.proto\";\nmessage A {\n  C c = 1;\n}\n==> b.proto\nsyntax = \"proto3\";\nimport \"c.proto\";\n==> c.proto\nsyntax = \"proto3\";\nmessage C {}\n",
    ),
    ("field used as type", "syntax = \"proto3\";\nmessage A {\n  int32 b = 1;\n  b c = 2;\n}\n"),
    ("extend an enum", "syntax = \"proto2\";\nenum E { A = 0; }\nextend E {\n  optional int32 x = 1;\n}\n"),
    (
        "method takes an enum",
        "syntax = \"proto3\";\nenum E { A = 0; }\nmessage M {}\nservice S {\n  rpc Go(E) returns (M);\n}\n",
    ),
    ("import not found", "syntax = \"proto3\";\nimport \"missing.proto\";\n"),
    (
        "import cycle",
        "syntax = \"proto3\";\nimport \"b.proto\";\n==> b.proto\nsyntax = \"proto3\";\nimport \"main.proto\";\n",
    ),
    ("message defined twice", "syntax = \"proto3\";\nmessage A {}\nmessage A {}\n"),
    ("field name twice", "syntax = \"proto3\";\nmessage A {\n  int32 a = 1;\n  string a = 2;\n}\n"),
    ("enum values collide", "syntax = \"proto3\";\nenum E { X = 0; }\nenum F { Y = 0; X = 1; }\n"),
    (
        "message named as a package",
        "syntax = \"proto3\";\npackage a.b;\nimport \"b.proto\";\n==> b.proto\nsyntax = \"proto3\";\nmessage a {}\n",
    ),
    ("nested name twice", "syntax = \"proto3\";\nmessage A {\n  message B {}\n  enum B { X = 0; }\n}\n"),
    ("service method twice", "syntax = \"proto3\";\nmessage M {}\nservice S {\n  rpc A(M) returns (M);\n  rpc A(M) returns (M);\n}\n"),
    // Numbers.
    ("field number used twice", "syntax = \"proto3\";\nmessage A {\n  int32 a = 1;\n  int32 b = 1;\n}\n"),
    ("field number zero", "syntax = \"proto3\";\nmessage A {\n  int32 a = 0;\n}\n"),
    ("field number above the maximum", "syntax = \"proto3\";\nmessage A {\n  int32 a = 536870912;\n}\n"),
    ("field number in the implementation's range", "syntax = \"proto3\";\nmessage A {\n  int32 a = 19500;\n}\n"),
    ("reserved number used", "syntax = \"proto3\";\nmessage A {\n  reserved 2 to 5;\n  int32 a = 3;\n}\n"),
    ("reserved name used", "syntax = \"proto3\";\nmessage A {\n  reserved \"a\";\n  int32 a = 3;\n}\n"),
    ("reserved ranges overlap", "syntax = \"proto3\";\nmessage A {\n  reserved 1 to 5;\n  reserved 4;\n}\n"),
    ("extension range holds a field", "syntax = \"proto2\";\nmessage A {\n  optional int32 a = 10;\n  extensions 5 to 20;\n}\n"),
    ("extension ranges overlap", "syntax = \"proto2\";\nmessage A {\n  extensions 5 to 20;\n  extensions 10 to 30;\n}\n"),
    ("extension range over reserved", "syntax = \"proto2\";\nmessage A {\n  reserved 7;\n  extensions 5 to 20;\n}\n"),
    (
        "extension outside the ranges",
        "syntax = \"proto2\";\nmessage A {\n  extensions 100 to 200;\n}\nextend A {\n  optional int32 x = 5;\n}\n",
    ),
    (
        "extension number twice",
        "syntax = \"proto2\";\nmessage A {\n  extensions 100 to 200;\n}\nextend A {\n  optional int32 x = 150;\n  optional int32 y = 150;\n}\n",
    ),
    ("reserved range backwards", "syntax = \"proto3\";\nmessage A {\n  reserved 5 to 2;\n}\n"),
    ("extension range from zero", "syntax = \"proto2\";\nmessage A {\n  extensions 0 to 10;\n}\n"),
    ("enum reserved number used", "syntax = \"proto3\";\nenum E {\n  reserved 1;\n  A = 0;\n  B = 1;\n}\n"),
    ("enum reserved name used", "syntax = \"proto3\";\nenum E {\n  reserved \"B\";\n  A = 0;\n  B = 1;\n}\n"),
    ("enum value number twice", "syntax = \"proto3\";\nenum E {\n  A = 0;\n  B = 0;\n}\n"),
    ("empty enum", "syntax = \"proto2\";\nenum E {}\n"),
    // Maps and oneofs.
    ("float map key", "syntax = \"proto3\";\nmessage A {\n  map<float, int32> m = 1;\n}\n"),
    ("enum map key", "syntax = \"proto3\";\nenum E { X = 0; }\nmessage A {\n  map<E, int32> m = 1;\n}\n"),
    ("message map key", "syntax = \"proto3\";\nmessage A {\n  map<A, int32> m = 1;\n}\n"),
    (
        "map of a closed enum without zero",
        "syntax = \"proto2\";\nenum E {\n  A = 1;\n}\nmessage M {\n  map<string, E> m = 1;\n}\n",
    ),
    (
        "map entry name taken",
        "syntax = \"proto3\";\nmessage A {\n  message MEntry {}\n  map<string, int32> m = 1;\n}\n",
    ),
    // Defaults and JSON names.
    ("proto3 default", "syntax = \"proto3\";\nmessage A {\n  int32 a = 1 [default = 5];\n}\n"),
    ("repeated default", "syntax = \"proto2\";\nmessage A {\n  repeated int32 a = 1 [default = 5];\n}\n"),
    ("enum default not a value", "syntax = \"proto2\";\nenum E { X = 0; }\nmessage A {\n  optional E e = 1 [default = Y];\n}\n"),
    ("default on a message type", "syntax = \"proto2\";\nmessage B {}\nmessage A {\n  optional B b = 1 [default = X];\n}\n"),
    ("json names collide", "syntax = \"proto3\";\nmessage A {\n  int32 foo_bar = 1;\n  int32 fooBar = 2;\n}\n"),
    ("custom json names collide", "syntax = \"proto3\";\nmessage A {\n  int32 a = 1 [json_name = \"x\"];\n  int32 b = 2 [json_name = \"x\"];\n}\n"),
    (
        "json name on an extension",
        "syntax = \"proto2\";\nmessage A {\n  extensions 100 to 200;\n}\nextend A {\n  optional int32 x = 150 [json_name = \"y\"];\n}\n",
    ),
    ("json name in brackets", "syntax = \"proto3\";\nmessage A {\n  int32 a = 1 [json_name = \"[x]\"];\n}\n"),
    ("json name twice", "syntax = \"proto3\";\nmessage A {\n  int32 a = 1 [json_name = \"x\", json_name = \"y\"];\n}\n"),
    // Options.
    ("unknown option", "syntax = \"proto3\";\noption foo = 1;\n"),
    ("unknown custom option", "syntax = \"proto3\";\noption (foo) = 1;\n"),
    ("bool option given a number", "syntax = \"proto3\";\noption java_multiple_files = 1;\n"),
    ("enum option given a bad name", "syntax = \"proto3\";\noption optimize_for = FAST;\n"),
    ("string option given a number", "syntax = \"proto3\";\noption java_package = 1;\n"),
    ("option set twice", "syntax = \"proto3\";\noption java_package = \"a\";\noption java_package = \"b\";\n"),
    (
        "int32 option out of range",
        "syntax = \"proto2\";\nimport \"google/protobuf/descriptor.proto\";\nextend google.protobuf.FileOptions {\n  optional int32 n = 50000;\n}\noption (n) = 3000000000;\n",
    ),
    (
        "aggregate with an unknown field",
        "syntax = \"proto2\";\nimport \"google/protobuf/descriptor.proto\";\nmessage O {\n  optional int32 a = 1;\n}\nextend google.protobuf.FileOptions {\n  optional O o = 50000;\n}\noption (o) = { b: 1 };\n",
    ),
    ("field of a scalar option", "syntax = \"proto3\";\noption java_package.x = \"a\";\n"),
    (
        "message option given a scalar",
        "syntax = \"proto2\";\nimport \"google/protobuf/descriptor.proto\";\nmessage O {\n  optional int32 a = 1;\n}\nextend google.protobuf.FileOptions {\n  optional O o = 50000;\n}\noption (o) = 1;\n",
    ),
    ("negative uint option", "syntax = \"proto3\";\nmessage A {\n  int32 a = 1 [ctype = -1];\n}\n"),
    // Features and editions.
    ("features in proto3", "syntax = \"proto3\";\noption features.field_presence = IMPLICIT;\n"),
    ("presence on a repeated field", "edition = \"2023\";\nmessage A {\n  repeated int32 a = 1 [features.field_presence = EXPLICIT];\n}\n"),
    ("implicit message field", "edition = \"2023\";\nmessage A {\n  A a = 1 [features.field_presence = IMPLICIT];\n}\n"),
    ("implicit field with a default", "edition = \"2023\";\nmessage A {\n  int32 a = 1 [features.field_presence = IMPLICIT, default = 1];\n}\n"),
    ("packed under editions", "edition = \"2023\";\nmessage A {\n  repeated int32 a = 1 [packed = true];\n}\n"),
    ("encoding of a singular field", "edition = \"2023\";\nmessage A {\n  int32 a = 1 [features.repeated_field_encoding = EXPANDED];\n}\n"),
    ("utf8 validation of an int", "edition = \"2023\";\nmessage A {\n  int32 a = 1 [features.utf8_validation = NONE];\n}\n"),
    ("message encoding of a scalar", "edition = \"2023\";\nmessage A {\n  int32 a = 1 [features.message_encoding = DELIMITED];\n}\n"),
    ("feature on the wrong target", "edition = \"2023\";\nmessage A {\n  option features.field_presence = IMPLICIT;\n}\n"),
    ("feature before its edition", "edition = \"2023\";\noption features.enforce_naming_style = STYLE2024;\n"),
    ("ctype in 2024", "edition = \"2024\";\nmessage A {\n  string s = 1 [ctype = CORD];\n}\n"),
    ("required in proto3", "syntax = \"proto3\";\nmessage A {\n  required int32 a = 1;\n}\n"),
    ("proto3 enum starting at one", "syntax = \"proto3\";\nenum E {\n  A = 1;\n}\n"),
    ("groups in proto3", "syntax = \"proto3\";\nmessage A {\n  repeated group G = 1 {}\n}\n"),
    ("extension ranges in proto3", "syntax = \"proto3\";\nmessage A {\n  extensions 100 to 200;\n}\n"),
    (
        "proto3 extension of a message",
        "syntax = \"proto3\";\nimport \"b.proto\";\nextend B {\n  int32 x = 150;\n}\n==> b.proto\nsyntax = \"proto2\";\nmessage B {\n  extensions 100 to 200;\n}\n",
    ),
    ("editions open enum starting at one", "edition = \"2023\";\nenum E {\n  A = 1;\n}\n"),
    (
        "closed enum in proto3",
        "syntax = \"proto3\";\nimport \"b.proto\";\nmessage A {\n  E e = 1;\n}\n==> b.proto\nsyntax = \"proto2\";\nenum E {\n  X = 0;\n}\n",
    ),
    ("implicit presence closed enum", "edition = \"2023\";\nenum E {\n  option features.enum_type = CLOSED;\n  X = 0;\n}\nmessage A {\n  E e = 1 [features.field_presence = IMPLICIT];\n}\n"),
    ("required extension", "syntax = \"proto2\";\nmessage A {\n  extensions 100 to 200;\n}\nextend A {\n  required int32 x = 150;\n}\n"),
    // The gaps against protoc 36.2 that issue 54 named.
    ("packed string", "syntax = \"proto2\";\nmessage A {\n  repeated string a = 1 [packed = true];\n}\n"),
    ("packed message", "syntax = \"proto3\";\nmessage A {\n  repeated A a = 1 [packed = true];\n}\n"),
    ("packed singular field", "syntax = \"proto2\";\nmessage A {\n  optional int32 a = 1 [packed = true];\n}\n"),
    ("packed extension string", "syntax = \"proto2\";\nmessage A {\n  extensions 100 to 200;\n}\nextend A {\n  repeated bytes b = 100 [packed = true];\n}\n"),
    ("missing import", "syntax = \"proto3\";\n\nimport \"nowhere.proto\";\nmessage A {}\n"),
    ("missing public import", "syntax = \"proto3\";\nimport \"google/protobuf/empty.proto\";\nimport public \"nowhere.proto\";\n"),
    // Naming styles (editions 2024 and 2026).
    ("2024 message name", "edition = \"2024\";\npackage p;\nmessage foo_bar {}\n"),
    ("2024 field name", "edition = \"2024\";\nmessage A {\n  int32 Bad = 1;\n}\n"),
    ("2024 field underscores", "edition = \"2024\";\nmessage A {\n  int32 a_1 = 1;\n}\n"),
    ("2024 enum value name", "edition = \"2024\";\nenum E {\n  E_UNSPECIFIED = 0;\n  Low = 1;\n}\n"),
    ("2024 enum value underscores", "edition = \"2024\";\nenum E {\n  E__ZERO = 0;\n}\n"),
    ("2024 package name", "edition = \"2024\";\npackage acme.Shop;\n"),
    ("2024 service name", "edition = \"2024\";\nmessage M {}\nservice shop {\n  rpc Get(M) returns (M);\n}\n"),
    ("2024 method name", "edition = \"2024\";\nmessage M {}\nservice Shop {\n  rpc get_it(M) returns (M);\n}\n"),
    ("2024 oneof name", "edition = \"2024\";\nmessage M {\n  oneof Choice {\n    int32 a = 1;\n  }\n}\n"),
    ("2024 extension name", "edition = \"2024\";\nmessage M {\n  extensions 1 to 5;\n}\nextend M {\n  int32 Bad = 1;\n}\n"),
    ("2024 style back on in a message", "edition = \"2024\";\noption features.enforce_naming_style = STYLE_LEGACY;\nmessage ok_here { int32 Fine = 1; }\nmessage N {\n  option features.enforce_naming_style = STYLE2024;\n  int32 Bad = 1;\n}\n"),
    ("2026 field name", "edition = \"2026\";\nmessage A {\n  int32 Bad = 1;\n}\n"),
    ("2026 nested export", "edition = \"2026\";\nmessage A {\n  export message B {}\n}\n"),
    ("2026 deeply nested export", "edition = \"2026\";\npackage p;\nexport message A {\n  message B {\n    export message C {}\n  }\n}\n"),
    ("2026 nested enum export", "edition = \"2026\";\nlocal message Ns {\n  export enum E { E_UNSPECIFIED = 0; }\n  reserved 1 to 100;\n}\n"),
    ("unknown feature value", "edition = \"2023\";\noption features.field_presence = SOMETIMES;\n"),
    ("java utf8 option in editions", "edition = \"2023\";\noption java_string_check_utf8 = true;\n"),
    ("java utf8 option in 2024", "edition = \"2024\";\noption java_string_check_utf8 = true;\n"),
    ("legacy required on extension", "edition = \"2023\";\nmessage A {\n  extensions 1 to 5;\n}\nextend A {\n  int32 x = 1 [features.field_presence = LEGACY_REQUIRED];\n}\n"),
    ("legacy required in oneof", "edition = \"2023\";\nmessage A {\n  oneof o {\n    int32 x = 1 [features.field_presence = LEGACY_REQUIRED];\n  }\n}\n"),
    ("legacy required repeated", "edition = \"2023\";\nmessage A {\n  repeated int32 x = 1 [features.field_presence = LEGACY_REQUIRED];\n}\n"),
    ("implicit presence message", "edition = \"2023\";\nmessage A {\n  A a = 1 [features.field_presence = IMPLICIT];\n}\n"),
    ("feature before introduced", "edition = \"2023\";\noption features.enforce_naming_style = STYLE2024;\n"),
    ("default_symbol_visibility in 2023", "edition = \"2023\";\noption features.default_symbol_visibility = LOCAL_ALL;\n"),
    ("declaration mismatch name", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \".b\", type: \"int32\" }];\n}\nextend A {\n  int32 c = 100;\n}\n"),
    ("declaration missing", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [verification = DECLARATION, declaration = { number: 101, full_name: \".b\", type: \"int32\" }];\n}\nextend A {\n  int32 c = 100;\n}\n"),
    ("declaration reserved", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, reserved: true }];\n}\nextend A {\n  int32 c = 100;\n}\n"),
    ("declaration type mismatch", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \".c\", type: \"string\" }];\n}\nextend A {\n  int32 c = 100;\n}\n"),
    ("declaration repeated mismatch", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \".c\", type: \"int32\", repeated: true }];\n}\nextend A {\n  int32 c = 100;\n}\n"),
    ("declaration number outside", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 300, full_name: \".c\", type: \"int32\" }];\n}\n"),
    ("declaration duplicate number", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \".c\", type: \"int32\" }, declaration = { number: 100, full_name: \".d\", type: \"int32\" }];\n}\n"),
    ("declaration on multi ranges", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200, 300 to 400 [declaration = { number: 100, full_name: \".c\", type: \"int32\" }];\n}\n"),
    ("utf8 validation on int", "edition = \"2023\";\nmessage A {\n  int32 x = 1 [features.utf8_validation = NONE];\n}\n"),
    ("message encoding on int", "edition = \"2023\";\nmessage A {\n  int32 x = 1 [features.message_encoding = DELIMITED];\n}\n"),
    ("packed feature on message", "edition = \"2023\";\nmessage A {\n  repeated A x = 1 [features.repeated_field_encoding = PACKED];\n}\n"),
    ("json legacy best effort proto3 conflict", "edition = \"2023\";\nmessage A {\n  int32 foo_bar = 1;\n  int32 fooBar = 2;\n}\n"),
    ("field presence on oneof", "edition = \"2023\";\nmessage A {\n  oneof o {\n    int32 x = 1 [features.field_presence = IMPLICIT];\n  }\n}\n"),
    ("declaration without a type", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \".c\" }];\n}\n"),
    ("declaration name without a dot", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \"c\", type: \"int32\" }];\n}\n"),
    ("declaration name with bad identifiers", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \".a..b\", type: \"int32\" }];\n}\n"),
    ("declaration type without a dot", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \".c\", type: \"A\" }];\n}\n"),
    ("declaration name twice", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \".c\", type: \"int32\" }];\n  extensions 300 to 400 [declaration = { number: 300, full_name: \".c\", type: \"int32\" }];\n}\n"),
    ("declaration in an unverified range", "edition = \"2023\";\nmessage A {\n  extensions 100 to 200 [verification = UNVERIFIED, declaration = { number: 100, full_name: \".c\", type: \"int32\" }];\n}\n"),
    ("declaration of a message type", "edition = \"2023\";\nmessage B {}\nmessage A {\n  extensions 100 to 200 [declaration = { number: 100, full_name: \".c\", type: \".B\" }];\n}\nextend A {\n  A c = 100;\n}\n"),
    ("enum type closed open", "edition = \"2023\";\nenum E {\n  option features.enum_type = OPEN;\n  E_ONE = 1;\n}\n"),
    // Symbol visibility across files (editions 2024 and 2026).
    ("local message from another file", "edition = \"2024\";\npackage p;\nimport \"b.proto\";\nmessage A {\n  q.L l = 1;\n}\n==> b.proto\nedition = \"2024\";\npackage q;\nlocal message L {}\n"),
    ("local enum from another file", "edition = \"2023\";\nimport \"b.proto\";\nmessage A {\n  E e = 1;\n}\n==> b.proto\nedition = \"2024\";\nlocal enum E {\n  E_UNSPECIFIED = 0;\n}\n"),
    ("nested message local by 2024 default", "edition = \"2024\";\nimport \"b.proto\";\nmessage A {\n  B.N n = 1;\n}\n==> b.proto\nedition = \"2024\";\nmessage B {\n  message N {}\n}\n"),
    ("top-level message local by 2026 default", "edition = \"2026\";\nimport \"b.proto\";\nmessage A {\n  B b = 1;\n}\n==> b.proto\nedition = \"2026\";\nmessage B {}\n"),
    ("local by file option", "syntax = \"proto3\";\nimport \"b.proto\";\nmessage A {\n  B b = 1;\n}\n==> b.proto\nedition = \"2024\";\noption features.default_symbol_visibility = LOCAL_ALL;\nmessage B {}\n"),
    ("local by aggregate file option", "syntax = \"proto3\";\nimport \"b.proto\";\nmessage A {\n  B b = 1;\n}\n==> b.proto\nedition = \"2024\";\noption features = { default_symbol_visibility: LOCAL_ALL };\nmessage B {}\n"),
    ("local method input", "edition = \"2024\";\nimport \"b.proto\";\nmessage M {}\nservice S {\n  rpc Go(B) returns (M);\n}\n==> b.proto\nedition = \"2024\";\nlocal message B {}\n"),
    ("local method output", "edition = \"2024\";\nimport \"b.proto\";\nmessage M {}\nservice S {\n  rpc Go(M) returns (B);\n}\n==> b.proto\nedition = \"2024\";\nlocal message B {}\n"),
    ("local extendee", "edition = \"2024\";\nimport \"b.proto\";\nextend B {\n  int32 x = 1;\n}\n==> b.proto\nedition = \"2024\";\nlocal message B {\n  extensions 1 to 5;\n}\n"),
];

/// The first error line a compiler printed: file, line and column (when
/// given) and the message.
#[derive(Debug)]
struct First {
    at: String,
    message: String,
}

fn first_protoc_error(stderr: &str) -> Option<First> {
    stderr.lines().find_map(|line| {
        if line.starts_with('[') || line.starts_with("warning") {
            return None;
        }
        let (file, rest) = line.split_once(".proto")?;
        let rest = rest.strip_prefix(':')?;
        let mut parts = rest.splitn(3, ':');
        let (a, b) = (parts.next()?, parts.next());
        match (a.parse::<u32>(), b.map(str::parse::<u32>)) {
            (Ok(l), Some(Ok(c))) => Some(First {
                at: format!("{file}.proto:{l}:{c}"),
                message: parts.next().unwrap_or("").trim().to_owned(),
            }),
            _ => Some(First {
                at: format!("{file}.proto"),
                message: rest.trim().to_owned(),
            }),
        }
    })
}

fn files_of(case: &str) -> Vec<(String, String)> {
    let mut files = vec![("main.proto".to_owned(), String::new())];
    for line in case.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("==> ") {
            files.push((name.trim().to_owned(), String::new()));
        } else {
            files.last_mut().unwrap().1.push_str(line);
        }
    }
    files
}

fn protoc_error(dir: &Path) -> Option<First> {
    let output = Command::new(protoc_bin_vendored::protoc_bin_path().expect("vendored protoc"))
        .arg("-I")
        .arg(".")
        .arg("-I")
        .arg(protoc_bin_vendored::include_path().expect("vendored includes"))
        .arg("--descriptor_set_out=/dev/null")
        .arg("main.proto")
        .current_dir(dir)
        .output()
        .expect("protoc runs");
    if output.status.success() {
        return None;
    }
    first_protoc_error(&String::from_utf8_lossy(&output.stderr))
}

fn fastrs_error(files: &[(String, String)]) -> Option<First> {
    let mut compiler = fastrs_compiler::Compiler::new();
    for (name, text) in files {
        compiler.source(name.clone(), text.clone());
    }
    compiler.include(protoc_bin_vendored::include_path().expect("vendored includes"));
    let error = compiler.compile(&["main.proto"]).err()?;
    let first = error.diagnostics().first()?;
    let at = match first.pos {
        Some(pos) => format!("{}:{}:{}", first.file, pos.line + 1, pos.column + 1),
        None => first.file.clone(),
    };
    Some(First {
        at,
        message: first.message.clone(),
    })
}

#[test]
fn catalogue_has_eighty_cases() {
    assert!(CASES.len() >= 80, "{} cases", CASES.len());
}

#[test]
fn rejected_where_protoc_rejects() {
    let root = std::env::temp_dir().join(format!("fastrs-errors-{}", std::process::id()));
    let mut failures = Vec::new();
    for (i, (name, case)) in CASES.iter().enumerate() {
        let dir = root.join(i.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let files = files_of(case);
        for (file, text) in &files {
            std::fs::write(dir.join(file), text).unwrap();
        }
        let Some(expected) = protoc_error(&dir) else {
            failures.push(format!("{name}: protoc accepts it (not a valid case)"));
            continue;
        };
        match fastrs_error(&files) {
            None => failures.push(format!(
                "{name}: accepted; protoc: {} {}",
                expected.at, expected.message
            )),
            Some(got) if got.at != expected.at => failures.push(format!(
                "{name}: at {} \"{}\"; protoc at {} \"{}\"",
                got.at, got.message, expected.at, expected.message
            )),
            Some(_) => {}
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}
