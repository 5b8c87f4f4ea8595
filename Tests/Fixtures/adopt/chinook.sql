-- A Chinook-like music store: bracketed names, named constraints, NVARCHAR/NUMERIC types,
-- explicit NO ACTION foreign keys, a link table with its own index.
CREATE TABLE [Artist] (
    [ArtistId] INTEGER NOT NULL,
    [Name] NVARCHAR(120),
    CONSTRAINT [PK_Artist] PRIMARY KEY ([ArtistId])
);
CREATE TABLE [Album] (
    [AlbumId] INTEGER NOT NULL,
    [Title] NVARCHAR(160) NOT NULL,
    [ArtistId] INTEGER NOT NULL,
    CONSTRAINT [PK_Album] PRIMARY KEY ([AlbumId]),
    FOREIGN KEY ([ArtistId]) REFERENCES [Artist] ([ArtistId]) ON DELETE NO ACTION ON UPDATE NO ACTION
);
CREATE TABLE [Genre] ([GenreId] INTEGER NOT NULL PRIMARY KEY, [Name] NVARCHAR(120));
CREATE TABLE [MediaType] ([MediaTypeId] INTEGER NOT NULL PRIMARY KEY, [Name] NVARCHAR(120));
CREATE TABLE [Track] (
    [TrackId] INTEGER NOT NULL PRIMARY KEY,
    [Name] NVARCHAR(200) NOT NULL,
    [AlbumId] INTEGER REFERENCES [Album] ([AlbumId]),
    [MediaTypeId] INTEGER NOT NULL REFERENCES [MediaType] ([MediaTypeId]),
    [GenreId] INTEGER REFERENCES [Genre] ([GenreId]),
    [Composer] NVARCHAR(220),
    [Milliseconds] INTEGER NOT NULL,
    [Bytes] INTEGER,
    [UnitPrice] NUMERIC(10,2) NOT NULL DEFAULT 0.99
);
CREATE TABLE [Employee] (
    [EmployeeId] INTEGER NOT NULL PRIMARY KEY,
    [LastName] NVARCHAR(20) NOT NULL,
    [FirstName] NVARCHAR(20) NOT NULL,
    [ReportsTo] INTEGER REFERENCES [Employee] ([EmployeeId]),
    [BirthDate] DATETIME,
    [Email] NVARCHAR(60)
);
CREATE TABLE [Customer] (
    [CustomerId] INTEGER NOT NULL PRIMARY KEY,
    [FirstName] NVARCHAR(40) NOT NULL,
    [LastName] NVARCHAR(20) NOT NULL,
    [Email] NVARCHAR(60) NOT NULL,
    [SupportRepId] INTEGER REFERENCES [Employee] ([EmployeeId])
);
CREATE TABLE [Invoice] (
    [InvoiceId] INTEGER NOT NULL PRIMARY KEY,
    [CustomerId] INTEGER NOT NULL REFERENCES [Customer] ([CustomerId]),
    [InvoiceDate] DATETIME NOT NULL,
    [Total] NUMERIC(10,2) NOT NULL
);
CREATE TABLE [InvoiceLine] (
    [InvoiceLineId] INTEGER NOT NULL PRIMARY KEY,
    [InvoiceId] INTEGER NOT NULL REFERENCES [Invoice] ([InvoiceId]),
    [TrackId] INTEGER NOT NULL REFERENCES [Track] ([TrackId]),
    [UnitPrice] NUMERIC(10,2) NOT NULL,
    [Quantity] INTEGER NOT NULL
);
CREATE TABLE [Playlist] ([PlaylistId] INTEGER NOT NULL PRIMARY KEY, [Name] NVARCHAR(120));
CREATE TABLE [PlaylistTrack] (
    [PlaylistId] INTEGER NOT NULL,
    [TrackId] INTEGER NOT NULL,
    CONSTRAINT [PK_PlaylistTrack] PRIMARY KEY ([PlaylistId], [TrackId]),
    FOREIGN KEY ([PlaylistId]) REFERENCES [Playlist] ([PlaylistId]),
    FOREIGN KEY ([TrackId]) REFERENCES [Track] ([TrackId])
);
CREATE INDEX [IFK_AlbumArtistId] ON [Album] ([ArtistId]);
CREATE INDEX [IFK_TrackAlbumId] ON [Track] ([AlbumId]);
CREATE INDEX [IFK_TrackGenreId] ON [Track] ([GenreId]);
CREATE INDEX [IFK_InvoiceLineInvoiceId] ON [InvoiceLine] ([InvoiceId]);
CREATE INDEX [IFK_PlaylistTrackTrackId] ON [PlaylistTrack] ([TrackId]);
CREATE UNIQUE INDEX [UX_CustomerEmail] ON [Customer] ([Email]);
