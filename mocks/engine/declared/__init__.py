"""What a world fixture declares as data: templates and their operations, computed fields, views, pages, argument checks, saved lists."""
