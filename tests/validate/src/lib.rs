//! Checks of fastrs's CEL and validation against independent data and
//! implementations; the tests are in `tests/`.
