//! `impl Chain` for a message holding another of its own type in a singular
//! field: the parts `fastrs::chain` sizes and writes in a loop, level by level.

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::tag_bytes;
use super::{size, write};
use crate::model::Message;

pub fn impl_chain(msg: &Message) -> TokenStream {
    let Some(link) = msg.chain else {
        return TokenStream::new();
    };
    let ident = &msg.ident;
    let field = &msg.fields[link];
    let (link, key) = (&field.ident, tag_bytes(&field.tag));
    let rest = size::rest(msg);
    let after = write::after_link(msg);
    let before = write::before_link(msg);
    let w = if before.is_empty() { quote!(_w) } else { quote!(w) };
    // The parts are forced inline: `chain::write_levels` keeps the writer in
    // registers around its loops, which only holds if the message's fields
    // are written in the loop rather than by a call given the writer's address
    // (plain `#[inline]` left them out of line: nested encode took 15% more
    // instructions). Each is inlined in two places, the chain's loop and the
    // message that holds no link.
    quote! {
        #[allow(deprecated)]
        impl __fastrs::chain::Chain for #ident {
            const LINK_KEY: &'static [u8] = #key;

            #[inline]
            fn link(&self) -> ::core::option::Option<&Self> {
                self.#link.as_deref()
            }

            #[inline(always)]
            fn rest_size(&self) -> usize {
                #rest
            }

            #[inline(always)]
            fn write_after_link(&self, w: &mut ::fastrs::Writer<'_>) {
                #after
            }

            #[inline(always)]
            fn write_before_link(&self, #w: &mut ::fastrs::Writer<'_>) {
                #before
            }
        }
    }
}
