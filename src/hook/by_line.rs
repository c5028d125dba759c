//! Lookups by line in an outline's lists (declarations, holes), which the outline writes in
//! line order: a binary search finds the ones from a line on, where a pass over every item per
//! lookup made a whole-file rewrite quadratic.

use crate::lean::Declaration;

/// Items of an outline (declarations, holes) and whether they are in line order, as an
/// outline lists them: then the ones from a line on are found by a binary search, not a pass
/// over all of them per lookup (a file rewritten whole holes or replaces all its
/// declarations at once). Out of order, every item is searched, as before.
pub struct ByLine<'o, T> {
    items: &'o [T],
    line: fn(&T) -> usize,
    in_order: bool,
}

impl<'o, T> ByLine<'o, T> {
    /// `items` with the line of each, `line`.
    pub fn of(items: &'o [T], line: fn(&T) -> usize) -> Self {
        let in_order = items.is_sorted_by_key(line);
        ByLine {
            items,
            line,
            in_order,
        }
    }

    /// The items whose line is in `lines`, in the list's order (when it is in line order,
    /// only those are visited).
    pub fn in_lines(&self, lines: std::ops::RangeInclusive<usize>) -> impl Iterator<Item = &'o T> {
        let f = self.line;
        let in_order = self.in_order;
        let end = *lines.end();
        // In line order, the first item at the range's start is found by a binary search.
        let from = if in_order {
            self.items.partition_point(|x| f(x) < *lines.start())
        } else {
            0
        };
        self.items[from..]
            .iter()
            .take_while(move |x| !in_order || f(x) <= end)
            .filter(move |x| lines.contains(&f(x)))
    }
}

/// The declaration named `full_name` that starts at `line`, the first of equals.
pub fn declaration_at<'o>(
    declarations: &ByLine<'o, Declaration>,
    line: usize,
    full_name: &str,
) -> Option<&'o Declaration> {
    declarations
        .in_lines(line..=line)
        .find(|d| d.full_name == full_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The items in a range of lines are those a filter of every item gives, in order or not.
    #[test]
    fn items_by_line_are_those_a_full_search_finds() {
        let lists: [&[usize]; 5] = [
            &[],
            &[1, 2, 2, 3, 7, 7, 7, 9],
            &[5, 1, 4, 4, 2, 9],
            &[3, 3, 3],
            &[1, 10, 20],
        ];
        for list in lists {
            let items: Vec<(usize, usize)> = list.iter().copied().enumerate().collect();
            let by = ByLine::of(&items, |x| x.1);
            assert_eq!(by.in_order, list.is_sorted());
            for a in 0..12 {
                for b in a..12 {
                    let fast: Vec<_> = by.in_lines(a..=b).collect();
                    let slow: Vec<_> = items.iter().filter(|x| (a..=b).contains(&x.1)).collect();
                    assert_eq!(fast, slow, "{list:?} {a}..={b}");
                }
            }
        }
    }
}
