//! Field numbers, extension ranges, reserved ranges and names of a
//! message, and the numbers of extensions.

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::Label;

use super::Checker;
use crate::error::At;
use crate::error::Problem;
use crate::symbols::join;

/// The largest field number.
const MAX_NUMBER: i32 = (1 << 29) - 1;

/// Numbers protoc keeps for itself.
const IMPLEMENTATION_RESERVED: std::ops::RangeInclusive<i32> = 19000..=19999;

impl Checker<'_> {
    pub(super) fn numbers(&mut self, name: &str, message: &d::DescriptorProto, path: &[i32]) {
        let at = |field: i32, i: usize| [path, &[field, i as i32]].concat();
        for (i, field) in message.field.iter().enumerate() {
            self.field_number(field, &at(2, i), false);
        }
        for (i, range) in message.extension_range.iter().enumerate() {
            let (start, end) = (range.start.unwrap_or(0), range.end.unwrap_or(0));
            if start <= 0 {
                self.problem(&at(5, i), At::Number, "Extension numbers must be positive integers.");
            }
            if start >= end {
                self.problem(
                    &at(5, i),
                    At::Number,
                    "Extension range end number must be greater than start number.",
                );
            }
        }
        for (i, range) in message.reserved_range.iter().enumerate() {
            let (start, end) = (range.start.unwrap_or(0), range.end.unwrap_or(0));
            if start <= 0 {
                self.problem(&at(9, i), At::Number, "Reserved numbers must be positive integers.");
            }
            if start >= end {
                self.problem(
                    &at(9, i),
                    At::Number,
                    "Reserved range end number must be greater than start number.",
                );
            }
        }
        self.reserved_overlaps(message, path);
        self.ranges_and_fields(message, path);
        self.duplicate_numbers(name, message, path);
        let message_set = message.options.as_ref().and_then(|o| o.message_set_wire_format) == Some(true);
        let max = if message_set { i32::MAX } else { MAX_NUMBER };
        if message
            .extension_range
            .iter()
            .any(|r| r.end.unwrap_or(0) as i64 > max as i64 + 1)
        {
            self.problem(
                path,
                At::Number,
                format!("Extension numbers cannot be greater than {max}."),
            );
        }
    }

    fn field_number(&mut self, field: &d::FieldDescriptorProto, path: &[i32], extension: bool) {
        let number = field.number.unwrap_or(0);
        if number <= 0 {
            self.problem(path, At::Number, "Field numbers must be positive integers.");
        } else if !extension && number > MAX_NUMBER {
            self.problem(
                path,
                At::Number,
                format!("Field numbers cannot be greater than {MAX_NUMBER}."),
            );
        } else if IMPLEMENTATION_RESERVED.contains(&number) {
            // protoc's command line checks this, with no place in the file.
            self.problems.push(Problem::nowhere(format!(
                "Field numbers {} through {} are reserved for the protocol buffer library implementation.",
                IMPLEMENTATION_RESERVED.start(),
                IMPLEMENTATION_RESERVED.end()
            )));
        }
    }

    fn reserved_overlaps(&mut self, message: &d::DescriptorProto, path: &[i32]) {
        let ranges = &message.reserved_range;
        for (i, first) in ranges.iter().enumerate() {
            for second in &ranges[i + 1..] {
                let (s1, e1) = (first.start.unwrap_or(0), first.end.unwrap_or(0));
                let (s2, e2) = (second.start.unwrap_or(0), second.end.unwrap_or(0));
                if e1 > s2 && e2 > s1 {
                    self.problem(
                        &[path, &[9, i as i32]].concat(),
                        At::Number,
                        format!(
                            "Reserved range {s2} to {} overlaps with already-defined range {s1} to {}.",
                            e2 - 1,
                            e1 - 1
                        ),
                    );
                }
            }
        }
        let mut seen = std::collections::HashSet::new();
        for name in &message.reserved_name {
            if !seen.insert(&**name) {
                self.problem(
                    path,
                    At::Name,
                    format!("Field name \"{}\" is reserved multiple times.", &**name),
                );
            }
        }
    }

    /// Fields inside extension or reserved ranges, or with reserved names;
    /// extension ranges over reserved ranges or each other.
    fn ranges_and_fields(&mut self, message: &d::DescriptorProto, path: &[i32]) {
        let at = |field: i32, i: usize| [path, &[field, i as i32]].concat();
        for (f, field) in message.field.iter().enumerate() {
            let number = field.number.unwrap_or(0);
            let name = field.name.as_deref().unwrap_or("");
            for (j, range) in message.extension_range.iter().enumerate() {
                let (start, end) = (range.start.unwrap_or(0), range.end.unwrap_or(0));
                if start <= number && number < end {
                    let text = format!(
                        "Extension range {start} to {} includes field \"{name}\" ({number}).",
                        end - 1
                    );
                    self.problem(&at(5, j), At::Number, text);
                }
            }
            for (j, range) in message.reserved_range.iter().enumerate() {
                if range.start.unwrap_or(0) <= number && number < range.end.unwrap_or(0) {
                    self.problem(
                        &at(9, j),
                        At::Number,
                        format!("Field \"{name}\" uses reserved number {number}."),
                    );
                }
            }
            if message.reserved_name.iter().any(|r| &**r == name) {
                self.problem(&at(2, f), At::Name, format!("Field name \"{name}\" is reserved."));
            }
        }
        for (i, range) in message.extension_range.iter().enumerate() {
            let (s1, e1) = (range.start.unwrap_or(0), range.end.unwrap_or(0));
            for reserved in &message.reserved_range {
                let (s2, e2) = (reserved.start.unwrap_or(0), reserved.end.unwrap_or(0));
                if e1 > s2 && e2 > s1 {
                    let text = format!(
                        "Extension range {s1} to {} overlaps with reserved range {s2} to {}.",
                        e1 - 1,
                        e2 - 1
                    );
                    self.problem(&at(5, i), At::Number, text);
                }
            }
            for other in &message.extension_range[i + 1..] {
                let (s2, e2) = (other.start.unwrap_or(0), other.end.unwrap_or(0));
                if e1 > s2 && e2 > s1 {
                    let text = format!(
                        "Extension range {s2} to {} overlaps with already-defined range {s1} to {}.",
                        e2 - 1,
                        e1 - 1
                    );
                    self.problem(&at(5, i), At::Number, text);
                }
            }
        }
    }

    fn duplicate_numbers(&mut self, name: &str, message: &d::DescriptorProto, path: &[i32]) {
        for (i, field) in message.field.iter().enumerate() {
            let number = field.number.unwrap_or(0);
            let Some(first) = message.field[..i].iter().find(|f| f.number == field.number) else {
                continue;
            };
            let mut next = 1;
            while message.field.iter().any(|f| f.number == Some(next)) {
                next += 1;
            }
            self.problem(
                &[path, &[2, i as i32]].concat(),
                At::Number,
                format!(
                    "Field number {number} has already been used in \"{name}\" by field \"{}\". Next available field \
                     number is {next}.",
                    first.name.as_deref().unwrap_or("")
                ),
            );
        }
    }

    /// An extension: its number is one its extendee declares, and unused
    /// by this file's other extensions of it.
    pub(super) fn extension_numbers(&mut self, scope: &str, field: &d::FieldDescriptorProto, path: &[i32]) {
        self.field_number(field, path, true);
        let number = field.number.unwrap_or(0);
        let extendee = field
            .extendee
            .as_deref()
            .unwrap_or("")
            .trim_start_matches('.')
            .to_owned();
        let Some(target) = self.schema.message(&extendee) else {
            return;
        };
        let declared = target
            .extension_range
            .iter()
            .any(|r| r.start.unwrap_or(0) <= number && number < r.end.unwrap_or(0));
        if !declared {
            self.problem(
                path,
                At::Number,
                format!("\"{extendee}\" does not declare {number} as an extension number."),
            );
        }
        let full = join(scope, field.name.as_deref().unwrap_or(""));
        if let Some(first) = self.extension_numbers.get(&(extendee.clone(), number)) {
            let text =
                format!("Extension number {number} has already been used in \"{extendee}\" by extension \"{first}\".");
            self.problem(path, At::Number, text);
        } else {
            self.extension_numbers.insert((extendee.clone(), number), full.clone());
        }
        if field.label == Some(Label::Required) {
            self.problem(path, At::Type, format!("The extension {full} cannot be required."));
        }
    }
}
