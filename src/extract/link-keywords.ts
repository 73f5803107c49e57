// Multilingual phrases for the link scorer: what asks the reader to verify/confirm/sign in/reset,
// what marks every other kind of link, the "wasn't you?" sentences that turn a link into a safety
// exit, and the "click/open this link" instructions. Same phrase syntax as keywords.ts.
//
// Languages: English, German, Dutch, French, Spanish, Portuguese, Italian, Polish, Czech, Slovak,
// Danish, Norwegian, Swedish, Finnish, Hungarian, Romanian, Turkish, Greek, Russian, Ukrainian,
// Hebrew, Arabic, Hindi, Thai, Vietnamese, Indonesian/Malay, Japanese, Chinese, Korean. The verbs
// were checked against the translations of Keycloak's account e-mails (verify e-mail, reset
// credentials, execute actions, update e-mail: themes/…/email/messages/messages_*.properties), a
// maintained, community-translated source of exactly these transactional sentences.
import { KeywordMatcher } from './keywords.js';

export const ACTION = 1;
export const OTHER = 2;
export const NEGATION = 3;
export const NEUTRALIZER = 4;
/** Signing in is a verification act only when the mail is about signing in (magic links, codes). */
export const SIGN_IN = 5;
/** "Click the link", "open this link": an instruction to follow a link, whatever for. */
export const CLICK = 6;
/** Names of the code itself ("verification code", "验证码"): they hold an action stem but ask for nothing. */
export const CODE_NOUN = 7;
/** Unsubscribe and preference links (read as OTHER by the scorer). */
export const LIST = 8;
/** What a verification acts on: the address, the account, the subscription, the password. */
export const OBJECT = 9;
/** "The link expires in 15 minutes", "can be used once": one-time links say so; marketing links do not. */
export const EXPIRY = 10;
/** "Or": a link offered as the alternative to the code just given ("… or click the button below"). */
export const ALTERNATIVE = 12;

const ALTERNATIVES = [
  'or', 'alternatively', 'oder', 'alternativ', 'ou', 'o', 'of', 'oppure', 'lub', 'albo', 'nebo', 'alebo',
  'vagy', 'sau', 'eller', 'tai', 'veya', 'ya da', 'ή', 'или', 'або', 'או', 'أو', 'या', 'หรือ', 'hoặc', 'atau',
  'または', 'もしくは', '或', '或者', '또는',
];

/** "If": a negation in a conditional ("If this wasn't you") opens a safety exit; a plain one does not. */
export const IF = 13;
/** "Allow": a sign-in approval's button; it asks only in a mail already about signing in. */
export const ALLOW = 14;
/**
 * Joining or accepting: the act itself only in a mail that invites the reader to an account, team
 * or workspace ("Join Northwind Design", "Dołącz do zespołu"), as signing in is in a sign-in mail.
 */
export const JOIN = 15;
const JOINS = [
  'join', 'accept', 'word lid', 'lid worden', 'aderir', 'juntar', 'view invitation', 'view the invitation', 'view your invitation', 'view invite', 'open invitation',
  'open the invitation', 'see invitation', 'see the invitation', 'respond to invitation',
  'beitreten', 'annehmen', 'akzeptieren', 'rejoindre', 'accepter', 'unirte', 'unirse', 'únete', 'aceptar',
  'aceitar', 'juntar se', 'entrar na equipa', 'entrar na equipe', 'accetta', 'accettare', 'unisciti', 'dołącz', 'dolacz',
  'akceptuj', 'przyjmij', 'přijmout', 'připojit se', 'deelnemen', 'accepteren', 'aannemen', 'gå med', 'liity', 'csatlakozz',
  'katıl', 'присоединиться', 'присоединяйтесь', 'принять', 'приєднатися', '参加する', '参加', '加入', '接受', '참여', '수락', '합류',
  'הצטרפות', 'הצטרף', 'הצטרפו', 'להצטרף', 'انضم', 'انضمام', 'الانضمام',
];
/** Words that say the mail invites the reader somewhere: to an account, team or workspace, unless to a MEETING. */
export const INVITATION = 16;
const INVITATIONS = [
  'invited you', 'invites you', 'has invited', 'have been invited', 'you\'re invited', 'you are invited', 'invitation',
  'einladung', 'eingeladen', 'lädt dich', 'lädt sie', 'vous invite', 'vous a invité', 't\'a invité', 'invitación',
  'te invitó', 'te ha invitado', 'le ha invitado', 'convite', 'convidou', 'convidado', 'convidada', 'invito',
  'ti ha invitato', 'invitato', 'uitnodiging', 'nodigt je uit', 'heeft je uitgenodigd', 'zaproszenie', 'zaprasza',
  'zaprosił', 'zaprosiła', 'pozvánka', 'pozval', 'pozvala', 'inbjudan', 'invitasjon', 'kutsu', 'meghívó', 'davet',
  'приглашение', 'пригласил', 'пригласила', 'приглашает', 'запрошення', '招待', '邀请', '邀請', '초대',
  'הזמנה', 'הזמין אותך', 'הזמינה אותך', 'מזמין אותך', 'دعوة', 'دعاك', 'يدعوك',
];
/**
 * A confirmation mail promised for later ("you'll receive a confirmation email", "确认邮件"): a noun
 * phrase that asks for nothing. Longer than "confirmation", it stops that word counting as the act.
 */
export const PROMISED_MAIL = 19;
const PROMISED_MAILS = [
  'confirmation email', 'confirmation e mail', 'confirmation mail', 'confirmation message', 'email you a confirmation',
  'send you a confirmation', 'receive a confirmation', 'get a confirmation', 'e mail de confirmation',
  'email de confirmation', 'mail de confirmation', 'correo de confirmación', 'email de confirmación', 'e mail de confirmação',
  'email de confirmação', 'mail di conferma', 'email di conferma', 'bestätigungs e mail', 'bestätigungsmail',
  'bestätigungs mail', 'bevestigingsmail', 'bevestigingse mail', 'письмо с подтверждением', 'подтверждающее письмо',
  '確認メール', '确认邮件', '確認郵件', '확인 메일', '확인 이메일',
];
/** An invitation to a meeting, call or event: its "Join" opens the meeting, not an account. */
export const MEETING = 17;
const MEETINGS = [
  // A calendar invitation, not a mention of a calendar ("connect your calendar" in a scheduling app's team invite).
  'meeting', 'google calendar', 'calendar invitation', 'calendar invite', 'add to calendar', 'add to your calendar',
  'google meet', 'webex', 'dial in', 'video call', 'conference call', 'call', 'event', 'zoom', 'réunion', 'appel vidéo', 'événement',
  'reunión', 'videollamada', 'llamada', 'evento', 'reunião', 'videochamada', 'chamada', 'riunione', 'videochiamata',
  'besprechung', 'videoanruf', 'veranstaltung', 'spotkanie', 'wydarzenie', 'vergadering', 'встреч*', 'видеовстреч*',
  'видеозвон*', 'созвон*', 'мероприяти*', '会議', '会议', '會議', '회의', 'イベント', '活动', '활동',
];
/**
 * What an invitation that counts invites to (the corpus contract): an account, a team, a workspace,
 * an organisation or project. A friend request, a channel or a meeting invites to none of these.
 */
export const TEAM = 18;
const TEAMS = [
  'team', 'workspace', 'organization', 'organisation', 'org', 'project', 'company', 'tenant',
  'arbeitsbereich', 'équipe', 'espace de travail', 'equipo', 'espacio de trabajo',
  'organización', 'equipe', 'equipa', 'espaço de trabalho', 'organização', 'squadra', 'area di lavoro',
  'organizzazione', 'werkruimte', 'organisatie', 'zespół', 'zespołu', 'organizacja', 'organizacji', 'obszar roboczy', 'tým',
  'команд*', 'рабочее пространство', 'организаци*', 'チーム', 'ワークスペース', '組織', '团队', '團隊', '工作区',
  '工作區', '组织', '팀', '워크스페이스', '조직', 'צוות', 'לצוות', 'סביבת עבודה', 'ארגון', 'فريق', 'الفريق',
  'مساحة العمل', 'منظمة',
];
const ALLOWS = ['allow', 'yes allow', 'allow sign in', 'allow login', 'zulassen', 'autoriser', 'permitir', 'consenti'];

const IFS = [
  'if', 'wenn', 'falls', 'si', 'se', 'indien', 'jeśli', 'jeżeli', 'pokud', 'jestli', 'ak', 'ha', 'dacă', 'hvis',
  'om', 'jos', 'eğer', 'αν', 'εάν', 'если', 'якщо', 'אם', 'إذا', 'إن', 'अगर', 'यदि', 'ถ้า', 'หาก', 'nếu',
  'jika', 'kalau', 'apabila', 'もし', '場合', '如果', '若', '만약', '경우',
];

/** Reports of an act already done ("your password was reset"): they ask for nothing. */
export const DONE = 11;

const DONES = [
  'was reset', 'been reset', 'were reset', 'is reset', 'successfully reset', 'reset successfully', 'reset complete',
  'reset is complete', 'was set', 'been set', 'set successfully', 'was confirmed', 'been confirmed', 'was verified',
  'been verified', 'was activated', 'been activated', 'was approved', 'been approved', 'with your new password',
  'using your new password', 'with the new password', 'mit ihrem neuen passwort', 'mit deinem neuen passwort',
  'avec votre nouveau mot de passe', 'con tu nueva contraseña', 'com sua nova senha', 'с новым паролем',
  // Past forms that share a stem with an imperative of the tables ("doğrulandı" / "doğrula")
  'doğrulandı', 'dogrulandi', 'onaylandı', 'etkinleştirildi', 'sıfırlandı', 'vahvistettu', 'aktivoitu',
  'megerősítve', 'megerősítetted', 'επιβεβαιώθηκε', 'επαληθεύτηκε', 'ενεργοποιήθηκε', 'подтвержден', 'подтверждена',
  'подтверждено', 'подтверждены', 'подтверждён', 'активирован', 'активирована', 'активировано', 'підтверджено',
  'підтверджена', 'підтверджений', 'активовано',
  // Scripts without spaces: the verb with a completion marker ("已验证", "验证成功", "確認が完了")
  '已验证', '已驗證', '验证成功', '驗證成功', '验证完成', '驗證完成', '已确认', '已確認', '确认成功', '確認成功',
  '已激活', '激活成功', '已启用', '已啟用', '確認が完了', '認証が完了', '登録が完了', '確認済み', '認証済み',
  '確認されました', '認証されました', '인증이 완료', '인증되었습니다', '확인되었습니다',
  '활성화되었습니다',
];

const EXPIRIES = [
  'link expires', 'link will expire', 'link is valid', 'link is only valid', 'link can only be used once', 'link valid',
  'link is good for', 'link works once', 'link only works once', 'single use', 'one time use',
  'button expires', 'button will expire', 'button is valid', 'button is only valid', 'button works once',
  'button only works', 'button can only be used once',
  'can be used once', 'can only be used once', 'one time link', 'single use link', 'link gültig', 'stunden gültig', 'minuten gültig', 'link ist nur',
  'link läuft', 'lien expire', 'lien est valable', 'enlace caduca', 'enlace expira', 'enlace es válido',
  'link expira', 'link é válido', 'ligação é válida', 'ligação expira', 'válida durante', 'válido durante', 'link scade', 'link è valido', 'link is geldig', 'link verloopt', 'uur geldig', 'minuten geldig',
  'link wygaśnie', 'link jest ważny', 'odkaz je platný', 'odkaz vyprší', 'länken är giltig', 'linket er gyldig',
  'lenken er gyldig', 'linkki on voimassa', 'saat geçerli', 'dakika geçerli', 'σύνδεσμος ισχύει', 'ссылка действительна',
  'ссылка действует', 'посилання дійсне', 'הקישור תקף', 'الرابط صالح', 'तक मान्य', 'ลิงก์นี้จะหมดอายุ',
  'liên kết có hiệu lực', 'liên kết sẽ hết hạn', 'tautan ini berlaku', 'tautan berlaku', 'リンクの有効期限', '链接有效', '連結有效', '동안 유효',
];

/**
 * In bulk mail, "confirm" and "activate" also sell seats, offers and cards; the act is a
 * verification only when one of these is named with it.
 */
const OBJECTS = [
  'email', 'e mail', 'email address', 'address', 'account', 'subscription', 'registration', 'sign up', 'signup',
  'identity', 'device', 'password', 'newsletter', 'mailing list', 'profile', 'phone number', 'it\'s you',
  'it is you', 'it was you', 'this is you', 'your identity',
  'e mail adresse', 'adresse', 'konto', 'abonnement', 'registrierung', 'passwort', 'gerät', 'identität',
  'e mailadres', 'inschrijving', 'registratie', 'wachtwoord', 'apparaat', 'compte', 'inscription', 'mot de passe',
  'appareil', 'correo', 'dirección', 'cuenta', 'suscripción', 'registro', 'contraseña', 'dispositivo', 'endereço',
  'conta', 'inscrição', 'assinatura', 'cadastro', 'senha', 'indirizzo', 'iscrizione', 'registrazione', 'adres*',
  'konto*', 'subskrypcj*', 'rejestracj*', 'hasło', 'hasła', 'adresu', 'účet', 'účtu', 'registraci', 'heslo',
  'odběr', 'e postadress*', 'prenumeration', 'registrering', 'lösenord', 'e mailadresse', 'tilmelding',
  'adgangskode', 'passord', 'sähköposti*', 'tili*', 'tilaus*', 'rekisteröi*', 'salasana*', 'e posta*', 'hesab*',
  'abonelik', 'kayıt', 'şifre*', 'λογαριασμ*', 'εγγραφ*', 'διεύθυνση', 'κωδικό πρόσβασης', 'κωδικού πρόσβασης', 'κωδικός πρόσβασης', 'почт*', 'адрес*', 'аккаунт*', 'учётн*',
  'учетн*', 'подписк*', 'регистрац*', 'пароль*', 'пошт*', 'акаунт*', 'обліков*', 'אימייל', 'דוא"ל', 'חשבון',
  'הרשמה', 'סיסמה', 'البريد', 'بريدك', 'حساب', 'الاشتراك', 'التسجيل', 'كلمة المرور', 'ईमेल', 'खाता', 'पंजीकरण',
  'पासवर्ड', 'อีเมล', 'บัญชี', 'สมัคร', 'รหัสผ่าน', 'tài khoản', 'đăng ký', 'mật khẩu', 'akun', 'langganan',
  'pendaftaran', 'kata sandi', 'メール', 'アカウント', '登録', 'パスワード', '会員', '邮箱', '郵箱', '电子邮件',
  '账户', '账号', '帳戶', '帳號', '注册', '註冊', '订阅', '訂閱', '密码', '密碼', '이메일', '계정', '가입', '구독',
  '비밀번호',
  // Estonian, Latvian, Lithuanian, Slovene, Croatian/Serbian, Bulgarian, Romanian, Malay, Swahili, Filipino
  'e posti aadress*', 'kasutaja*', 'parool*', 'konts', 'kontu', 'e pasta adres*', 'paroli', 'parole', 'paskyr*',
  'el pašt*', 'slaptažod*', 'račun*', 'geslo', 'gesl*', 'lozink*', 'e pošt*', 'профил*', 'парол*', 'имейл*',
  'контото', 'adresa de e mail', 'adresa de email', 'parola', 'parolă', 'e mel', 'kata laluan', 'barua pepe',
  'akaunti', 'nenosiri', 'email address mo', 'ელფოსტა', 'ელ ფოსტა', 'ანგარიში', 'პაროლი', 'էլ. փոստ', 'էլ փոստ', 'էլփոստ',
  'հաշիվ', 'գաղտնաբառ',
];

const CODE_NOUNS = [
  'verification code', 'confirmation code', 'activation code', 'verification number', 'verification pin',
  'login code', 'sign in code', 'bestätigungscode', 'verifizierungscode', 'aktivierungscode', 'anmeldecode',
  'verificatiecode', 'bevestigingscode', 'inlogcode', 'code de vérification', 'code de confirmation',
  'código de verificación', 'código de confirmación', 'código de verificação', 'código de confirmação',
  'codice di verifica', 'codice di conferma', 'cod de verificare', 'kod weryfikacyjny', 'kod potwierdzający',
  'ověřovací kód', 'overovací kód', 'megerősítő kód', 'bekræftelseskode', 'bekreftelseskode', 'verifieringskod',
  'bekräftelsekod', 'vahvistuskoodi', 'doğrulama kodu', 'onay kodu', 'κωδικός επαλήθευσης', 'κωδικός επιβεβαίωσης',
  'код подтверждения', 'код активации', 'код підтвердження', 'קוד אימות', 'رمز التحقق', 'رمز التأكيد',
  'सत्यापन कोड', 'รหัสยืนยัน', 'mã xác nhận', 'mã xác minh', 'mã xác thực', 'kode verifikasi', 'kode konfirmasi',
  '認証コード', '確認コード', '認証番号', '確認番号', '验证码', '驗證碼', '确认码', '確認碼', '认证码', '認證碼',
  '인증번호', '인증 번호', '인증코드', '인증 코드', '확인코드', '확인 코드',
];

/** Imperatives and nouns of the verification act. Past tenses ("verified", "confirmed") are absent on purpose. */
const ACTIONS = [
  // English
  'verify', 'verification', 'confirm', 'confirmation', 'activate', 'activation', 'magic link', 'reset',
  'new password', 'set password', 'set your password', 'set up your password', 'create password', 'create your password', 'choose password', 'choose a password',
  'choose a new password', 'complete registration', 'complete your registration', 'finish signing up', 'finish registration',
  'finish registering', 'finish your registration', 'complete sign up', 'complete your sign up', 'sign in link', 'login link',
  'log in link', 'one click sign in', 'one tap sign in',
  'approve', 'authorize', 'authorise', 'validate', 'subscribe me', 'yes subscribe',
  'change my password', 'recover your account', 'recover account', 'recover my account', 'recover your password', 'restore access', 'restore your access', 'regain access',
  // Unlocking a locked account restores access as a reset does ("Unlock my account")
  'unlock my account', 'unlock your account', 'unlock account', 'konto entsperren', 'débloquer mon compte', 'débloquer votre compte',
  'desbloquear mi cuenta', 'desbloquear cuenta', 'desbloquear minha conta', 'desbloquear conta', 'sblocca il mio account', 'sblocca account',
  'account ontgrendelen', 'odblokuj konto', 'it was me', 'this was me', 'that was me', 'yes it\'s me', 'it\'s me', 'that\'s me', 'c\'est moi', 'soy yo',
  'sou eu', 'это я', 'das war ich', 'ik was het',
  // Accepting an invitation to an account, team or workspace, and setting up an account someone
  // made for the reader, are activations (the corpus contract): the accept/join button asks for it.
  'accept invitation', 'accept the invitation', 'accept your invitation', 'accept invite', 'accept the invite',
  'accept your invite', 'join the team', 'join your team', 'join the workspace', 'join workspace',
  'join your workspace', 'join the organization', 'join the organisation', 'join organization', 'join the project',
  'set up your account', 'set up my account', 'set up account', 'finish setting up', 'complete your account', 'complete account setup',
  'einladung annehmen', 'einladung akzeptieren', 'team beitreten', 'arbeitsbereich beitreten', 'konto einrichten',
  'uitnodiging accepteren', 'uitnodiging aannemen', 'accepteer de uitnodiging', 'accepteer uitnodiging',
  'account instellen', 'accepter l\'invitation', 'accepter l invitation', 'accepter linvitation', 'rejoindre l\'équipe',
  'rejoindre l\'espace', 'configurer votre compte', 'aceptar invitación', 'aceptar la invitación', 'unirte al equipo',
  'unirse al equipo', 'aceitar convite', 'aceitar o convite', 'accetta invito', 'accetta l\'invito', 'accettare l\'invito',
  'acceptă invitația', 'zaakceptuj zaproszenie', 'przyjmij zaproszenie', 'akceptuj zaproszenie', 'přijmout pozvánku',
  'přijměte pozvánku', 'prijať pozvánku', 'acceptera inbjudan', 'godkänn inbjudan', 'accepter invitation*',
  'godta invitasjon*', 'aksepter invitasjon*', 'hyväksy kutsu', 'fogadd el a meghívást', 'meghívás elfogadása',
  'daveti kabul*', 'αποδοχή πρόσκλησης', 'αποδεχτείτε την πρόσκληση', 'принять приглашение', 'примите приглашение',
  'прийняти запрошення', 'קבלת ההזמנה', 'לקבל את ההזמנה', 'قبول الدعوة', 'आमंत्रण स्वीकार', 'निमंत्रण स्वीकार',
  'ยอมรับคำเชิญ', 'chấp nhận lời mời', 'terima undangan', '招待を承諾', '招待を受け入れる', '招待を受ける',
  '接受邀请', '接受邀請', '초대 수락', '초대를 수락',
  // Estonian, Latvian, Lithuanian, Slovene, Croatian/Serbian, Bulgarian, Romanian, Malay, Swahili, Filipino
  'kinnita*', 'kinnitan*', 'aktiveeri*', 'lähtesta*', 'apstiprin*', 'aktivizē*', 'aktivizet*', 'atiestatīt*',
  'patvirtin*', 'aktyvuo*', 'aktyvin*', 'atkurti slaptažodį', 'potrdi*', 'aktiviraj*', 'ponastavi*', 'potvrdi*',
  'resetuj*', 'потвърд*', 'активирай*', 'активиране', 'нулиране', 'потврди*', 'активирај*',
  'confirmă*', 'confirma adresa', 'activează*', 'resetează*', 'sahkan*', 'sahkan e-mel',
  'set semula', 'thibitisha*', 'washa akaunti', 'kumpirmahin', 'i-verify', 'i-activate', 'i-confirm',
  // Georgian and Armenian
  'დადასტურება', 'დაადასტურეთ', 'დაადასტურე', 'გააქტიურება', 'გაააქტიურეთ', 'პაროლის აღდგენა', 'հաստատել',
  'հաստատեք', 'ակտիվացնել', 'ակտիվացրեք', 'վերականգնել գաղտնաբառը',
  'vaihda salasana', 'vaihda salasanasi', 'aseta salasana', 'nollaa salasana', 'anmeldung freigeben',
  'primeiro acesso', 'criar chave de acesso', 'criar a chave de acesso', 'criar senha', 'criar a sua senha',
  // European Portuguese (palavra-passe, not senha)
  'definir palavra-passe', 'defina a sua palavra-passe', 'nova palavra-passe', 'redefinir palavra-passe', 'redefinir a palavra-passe',
  // Magic links named as such
  'lien magique', 'enlace mágico', 'link mágico', 'link magico', 'magischer link', 'magische link',
  // German
  'bestätigen', 'bestätige', 'bestätigung', 'bestaetigen', 'verifizieren', 'verifiziere', 'verifizierung',
  'aktivieren', 'aktiviere', 'aktivierung', 'zurücksetzen', 'neues passwort', 'passwort festlegen', 'anmeldelink',
  'freigeben', 'registrierung abschließen', 'konto wiederherstellen', 'zugang wiederherstellen',
  // Dutch
  'bevestig', 'bevestigen', 'bevestiging', 'verifieer', 'verifiëren', 'verifieren', 'verificatie', 'activeer',
  'activeren', 'activering', 'wachtwoord opnieuw instellen', 'wachtwoord herstellen', 'nieuw wachtwoord',
  'registratie voltooien', 'inloglink',
  // French
  'vérifier', 'vérifiez', 'vérification', 'confirmer', 'confirmez', 'activer', 'activez', 'réinitialiser',
  'réinitialisez', 'nouveau mot de passe', 'valider', 'validez', 'approuver', 'lien de connexion',
  'récupérer votre compte', 'récupérer mon compte',
  // Spanish / Portuguese / Italian / Romanian
  'verificar', 'verifica', 'verifique', 'verificación', 'confirmar', 'confirma', 'confirme', 'confirmación',
  'activar', 'activa', 'activación', 'restablecer', 'restablece', 'nueva contraseña', 'validar', 'aprobar',
  'verificação', 'confirmação', 'ativar', 'ative', 'ativação', 'redefinir', 'nova senha', 'aprovar', 'conferma',
  'confermare', 'verifica email', 'attiva', 'attivare', 'reimposta', 'reimpostare', 'nuova password',
  'confirmă', 'verifică', 'activează', 'resetează', 'parolă nouă', 'confirmați', 'confirmaţi', 'verificați',
  'verificaţi', 'activați', 'activaţi', 'resetați', 'resetaţi', 'contraseña nueva', 'crear contraseña',
  'crea tu contraseña', 'recuperar cuenta', 'recuperar tu cuenta', 'recuperar sua conta', 'recuperar conta',
  // Polish / Czech / Slovak / Hungarian
  'potwierdź', 'potwierdz', 'potwierdzić', 'potwierdzenie', 'zweryfikuj', 'weryfikacja', 'weryfikacji', 'aktywuj',
  'aktywacja', 'aktywować', 'zresetuj', 'resetuj', 'nowe hasło', 'ustaw hasło',
  'potvrdit', 'potvrďte', 'potvrzení', 'potvrdiť', 'potvrdenie', 'ověřit', 'ověřte', 'ověření', 'overiť', 'overte',
  'overenie', 'aktivovat', 'aktivujte', 'aktivovať', 'obnovit heslo', 'obnovení hesla', 'obnova hesla', 'nastavit heslo', 'nové heslo', 'obnoviť heslo', 'dokončit registraci',
  'megerősít*', 'erősítsd meg', 'erősítse meg', 'aktiválás', 'aktiváld', 'aktiválja', 'visszaállít*', 'jóváhagy*',
  'új jelszó',
  // Danish / Norwegian / Swedish / Finnish
  'bekræft', 'bekræfte', 'bekræftelse', 'aktivér', 'nulstil', 'nyt kodeord', 'ny adgangskode', 'verificer',
  'bekreft', 'bekrefte', 'bekreftelse', 'aktiver', 'tilbakestill', 'nytt passord', 'verifiser',
  'bekräfta', 'bekräftelse', 'verifiera', 'verifiering', 'aktivera', 'återställ', 'nytt lösenord',
  'vahvista*', 'aktivoi*', 'nollaa', 'uusi salasana', 'palauta salasana',
  // Turkish
  'doğrula*', 'dogrula*', 'onayla*', 'etkinleştir*', 'aktifleştir*', 'sıfırla*', 'yeni şifre',
  // Greek (stems without the accent's position: "επιβεβαίωση", "επιβεβαιώστε")
  'επιβεβαίω*', 'επιβεβαιώ*', 'επαλήθευ*', 'επαληθεύ*', 'ενεργοποί*', 'ενεργοποιή*', 'επαναφορά', 'νέος κωδικός', 'νέο κωδικό',
  // Russian / Ukrainian
  'подтверд*', 'подтвержд*', 'активир*', 'активац*', 'сбросить', 'сброс пароля', 'новый пароль', 'верифик*',
  'восстановить доступ', 'восстановить аккаунт', 'восстановление доступа',
  'підтверд*', 'підтвердж*', 'активу*', 'скинути', 'новий пароль', 'відновити доступ', 'відновлення доступу',
  // Hebrew / Arabic
  'אימות', 'לאמת', 'אמתו', 'אמת את', 'אישור', 'לאשר', 'אשרו', 'אשר את', 'הפעלת', 'הפעל את', 'איפוס',
  'סיסמה חדשה', 'בחירת סיסמה', 'שחזור חשבון', 'שחזור גישה', 'استعادة الحساب', 'استعادة الوصول',
  'تأكيد', 'أكد', 'تحقق', 'التحقق', 'تفعيل', 'فعّل', 'إعادة تعيين',
  // Hindi / Thai / Vietnamese / Indonesian and Malay
  'सत्यापित', 'सत्यापन', 'पुष्टि', 'सक्रिय', 'रीसेट',
  'ยืนยัน', 'เปิดใช้งาน', 'รีเซ็ต', 'ตั้งรหัสผ่านใหม่',
  'xác nhận', 'xác minh', 'xác thực', 'kích hoạt', 'đặt lại', 'khôi phục tài khoản', 'khôi phục quyền truy cập',
  'verifikasi', 'konfirmasi', 'aktifkan', 'aktivasi', 'atur ulang', 'setel ulang', 'sahkan', 'pulihkan akun',
  // Japanese / Chinese / Korean
  '確認', '認証', '有効化', '本登録', '登録を完了', '再設定', 'リセット', '承認',
  '验证', '驗證', '确认', '激活', '啟用', '启用', '重置', '重设', '重設', '批准',
  '인증', '확인', '활성화', '재설정',
];

/** Sign-in words: a magic link says them, but so does "Log in to view your statement". */
const SIGN_INS = [
  'sign in', 'signing in', 'log in', 'log on', 'logging in', 'login', 'sign me in', 'log me in',
  'anmelden', 'einloggen', 'anmeldung', 'melden sie sich', 'inloggen', 'aanmelden',
  'se connecter', 'me connecter', 'connectez vous', 'connectez moi', 'connecte moi', 'connexion', 'iniciar sesión', 'inicia sesión', 'entrar', 'fazer login',
  'iniciar sessão', 'accedi', 'accesso', 'conectare', 'autentifica*',
  'zalog*', 'logowani*', 'přihlásit', 'přihlaste', 'přihlášení', 'prihlásiť', 'prihláste', 'bejelentkez*',
  'log ind', 'logg inn', 'logga in', 'kirjaudu*', 'giriş yap*', 'oturum aç*',
  'σύνδεσ*', 'συνδεθ*', 'войти', 'вход', 'войдите', 'увійти', 'вхід',
  'התחבר*', 'כניסה', 'تسجيل الدخول', 'लॉग इन', 'साइन इन', 'เข้าสู่ระบบ', 'đăng nhập', 'masuk',
  'ログイン', 'サインイン', '登录', '登入', '로그인',
];

/** Instructions to follow a link: they make the next URL a call to action, not what for. */
const CLICKS = [
  'click', 'tap', 'open this link', 'follow this link', 'use this link', 'visit', 'copy and paste',
  'press the button', 'press this button', 'press the link', 'press below', 'push the button',
  // A button named in quotes ("press \"Approve\"", "select 'Allow'"): the press, not the newsroom.
  'press "', 'press \'', 'press “', 'press «', 'select "', 'select “', 'hit "',
  // "Or continue in your browser": the link as the other way to finish a sign-in.
  'continue in your browser', 'continue in browser', 'continue in the browser', 'open in your browser',
  'open in browser', 'finish in your browser', 'finish in the browser', 'complete it in your browser',
  'klicken', 'klicke', 'tippe', 'öffne', 'öffnen sie', 'klik', 'cliquez', 'cliquer', 'appuyez', 'haz clic',
  'haga clic', 'pulsa', 'clique', 'toque', 'clicca', 'fai clic', 'faceți clic', 'kliknij', 'klikněte', 'kliknite',
  'kattints', 'kattintson', 'klikk', 'klicka', 'napsauta', 'avaa', 'tıkla*', 'tikla*', 'κάντε κλικ', 'πατήστε', 'нажмите',
  'перейдите', 'натисніть', 'перейдіть', 'לחצו', 'לחץ', 'انقر', 'اضغط', 'क्लिक', 'คลิก', 'nhấn', 'bấm',
  'nhấp', 'klik', 'ketuk', 'クリック', 'タップ', '点击', '點擊', '클릭',
];

/** List management: its presence marks bulk mail, where a button must be backed by the mail's own words. */
const LISTS = [
  'unsubscribe', 'opt out', 'preferences', 'email preferences', 'manage subscription', 'abbestellen', 'newsletter abbestellen', 'désabonner',
  'se désabonner', 'désinscrire', 'désinscription', 'désabonnement', 'darse de baja', 'baja', 'cancelar suscripción', 'descadastrar',
  'descadastre', 'cancelar inscrição', 'cancelar assinatura', 'preferencias', 'preferências', 'préférences', 'annulla iscrizione', 'disiscriviti',
  'wypisz się', 'rezygnacja', 'odhlásit', 'odhlásiť', 'leiratkozás', 'dezabonare', 'afmeld', 'frameld',
  'avmeld', 'avregistrer', 'avsluta prenumeration', 'avprenumerera', 'peruuta tilaus', 'abonelikten çık', 'aboneliği iptal', 'διαγραφή',
  'απεγγραφή', 'отписаться', 'отписка', 'отказаться от рассылки', 'відписатися', 'הסרה מרשימת', 'להסרה', 'إلغاء الاشتراك',
  'सदस्यता समाप्त', 'ยกเลิกการรับ', 'hủy đăng ký', 'berhenti berlangganan', '配信停止', '登録解除', '購読解除', '退订',
  '退訂', '取消订阅', '取消訂閱', '수신거부', '수신 거부', 'afmelden', 'uitschrijven', 'voorkeuren',
];

/** Anchors and lead-ins of every other kind of link. */
const OTHERS = [
  // English
  'manage', 'view in browser', 'view online', 'view in your browser', 'view this email', 'view it in your browser',
  'web version', 'privacy', 'privacy policy', 'terms', 'legal', 'cookie', 'cookies', 'help',
  'help center', 'support', 'faq', 'contact', 'contact us', 'learn more', 'read more', 'forward', 'share',
  'docs', 'documentation', 'reference', 'changelog', 'change log', 'release notes', 'what changed', 'what\'s new',
  'api reference', 'cli reference', 'dokumentation', 'documentación', 'documentação', 'documentazione',
  'two step verification', 'two factor authentication', 'two factor', '2 step verification',
  '2 factor authentication', 'multi factor authentication', 'zwei faktor authentifizierung',
  'bestätigung in zwei schritten', 'validation en deux étapes', 'verificación en dos pasos',
  'verificação em duas etapas', 'go to console', '控制台', 'ダッシュボード', '대시보드', 'tableau de bord',
  'panel de control', 'painel de controle', 'read the article', 'read article', 'read the full article', 'read the story', 'read the full story', 'read now',
  'read on', 'continue reading', 'keep reading', 'view article', 'watch now', 'watch the video', 'listen now',
  'follow', 'facebook', 'twitter', 'instagram', 'linkedin', 'youtube', 'tiktok', 'app store', 'google play',
  'download', 'deny', 'decline', 'block', 'report', 'cancel', 'let us know', 'dashboard', 'track', 'tracking', 'order',
  'view order', 'invoice', 'pay', 'pay now', 'get started', 'getting started', 'home', 'homepage', 'website',
  'logo', 'rules', 'guidelines', 'community', 'blog', 'shop', 'store', 'find', 'book now', 'deals', 'offers',
  'sale', 'secure your account', 'secure account', 'secure my account', 'lock my account', 'lock your account',
  'lock account', 'freeze', 'change password', 'change your password', 'review activity',
  'this wasn\'t me', 'remove', 'review', 'new sign in', 'new login', 'recent sign in', 'sign in attempt',
  'login attempt', 'sign in activity', 'login activity', 'new device', 'sign in alert', 'login alert',
  'security alert', 'neue anmeldung', 'nouvelle connexion', 'nuevo inicio de sesión', 'novo login',
  'новый вход', '新しいログイン', '新登录', '新的登录', '새로운 로그인', 'feedback', 'survey', 'careers', 'press', 'status',
  'agenda', 'webinar', 'rsvp', 'your seat', 'register now', 'appointment', 'reservation', 'booking', 'payment',
  'delivery', 'delivery address', 'shipping address', 'billing address', 'attendance', 'lieferadresse', 'termin',
  'adresse de livraison', 'rendez vous', 'dirección de envío', 'endereço de entrega', 'cita', 'consulta',
  // Tickets, seats, meter readings and offers: confirming or activating one is not verifying anything
  'my seat', 'a seat', 'seat', 'seats', 'θέση', 'θέσης', 'θέσεις', 'ticket', 'tickets', 'authenticity', 'barcode', 'meter reading', 'meter readings', 'offer', 'your offer',
  'rewards', 'reward', 'elektroměr*', 'odečet', 'odečtu', 'stav elektroměru', 'zählerstand', 'zählerstände',
  'relevé de compteur', 'lectura del contador', 'lettura del contatore', 'meterstand', 'показания',
  // Delivery slots and visits of other languages: confirming one is not verifying anything
  'pristatymo', 'pristatymą', 'pristatymas', 'laiką', 'vizitą', 'vizito', 'piegādes', 'piegādi', 'vizīti', 'vizītes',
  'tarne', 'tarneaja', 'visiidi', 'vastuvõtu', 'dostava', 'dostave', 'dostavo', 'pregled', 'доставка', 'доставката',
  'livrare', 'livrarea', 'programare', 'programarea', 'penghantaran', 'temujanji', 'uwasilishaji', 'miadi',
  // A booking or reservation of another language: managing one is not verifying anything
  'buchung', 'reservierung', 'réservation', 'reserva', 'prenotazione', 'boeking', 'reservering', 'rezerwacja',
  'rezerwację', 'rezerwacji', 'rezervace', 'rezervasyon', 'bokning', 'varaus', 'foglalás', 'rezervare',
  'pemesanan', 'бронирование', 'бронирования', 'бронь', 'κράτηση', 'κράτησης', 'κράτησή',
  // German
  'abmelden', 'datenschutz', 'datenschutzerklärung', 'impressum',
  'hilfe', 'kontakt', 'agb', 'einstellungen', 'im browser ansehen', 'im browser anzeigen', 'im browser öffnen', 'im browser lesen', 'online ansehen', 'sendung verfolgen', 'bestellung',
  'konto sperren',
  // Dutch
  'in je browser', 'in uw browser', 'bekijk online', 'klantenservice',
  'veelgestelde vragen', 'voorwaarden',
  // French
  'confidentialité',
  'mentions légales', 'aide', 'nous contacter', 'contactez', 'version en ligne', 'voir la version',
  'commande', 'sécuriser mon compte', 'sécuriser votre compte',
  // Spanish / Portuguese / Italian
  'privacidad', 'ayuda', 'contacto', 'contáctanos',
  'ver en el navegador', 'pedido', 'rastrear', 
  'privacidade', 'ajuda', 'contato', 'fale conosco',
  'ver no navegador', 'assistenza', 'centro assistenza',
  'proteggi il tuo account', 'proteger mi cuenta', 'proteger minha conta', 'bloquear',
  // Polish / Czech / Slovak / Hungarian / Romanian
  'polityka prywatności', 'pomoc', 'regulamin', 
  'ochrana osobních údajů', 'nápověda', 'adatvédelem', 'súgó', 'confidențialitate',
  // Nordic
  
  'tietosuoja', 'personvern', 'integritetspolicy', 'privatlivspolitik', 'hjælp', 'hjelp', 'hjälp', 'ohje',
  'asiakaspalvelu', 'kundeservice', 'kundservice', 'kundeservice',
  // Turkish / Greek / Russian / Ukrainian
  'gizlilik', 'yardım', 'destek', 'απόρρητο',
  'βοήθεια', 'конфиденциальность', 'помощь', 'поддержка',
  'связаться', 'заказ', 'допомога', 'конфіденційність',
  // Hebrew / Arabic / Hindi / Thai / Vietnamese / Indonesian
  'פרטיות', 'עזרה', 'مركز المساعدة', 'الخصوصية', 'المساعدة',
  'गोपनीयता', 'सहायता', 'นโยบายความเป็นส่วนตัว', 'ช่วยเหลือ',
  'quyền riêng tư', 'trợ giúp', 'hỗ trợ', 'kebijakan privasi', 'bantuan',
  'pusat bantuan', 'xem trên trình duyệt', 'lihat di browser',
  // Safety exits, refusals and reports in every language of the tables: never the verification
  'konto sichern', 'konto sperren', 'das war ich nicht', 'ablehnen', 'abbrechen', 'stornieren', 'beveilig',
  'blokkeer', 'dit was ik niet', 'ik was het niet', 'weigeren', 'annuleren', 'sécuriser', 'bloquer',
  'ce n\'était pas moi', 'refuser', 'annuler', 'signaler', 'proteger', 'no fui yo', 'não fui eu', 'rechazar',
  'recusar', 'cancelar', 'denunciar', 'reportar', 'proteggi', 'blocca', 'non ero io', 'non sono stato io',
  'rifiuta', 'annulla', 'segnala', 'zabezpiecz', 'zablokuj', 'to nie ja', 'odrzuć', 'anuluj', 'zgłoś',
  'zabezpečit', 'zablokovat', 'nebyl jsem to já', 'odmítnout', 'zrušit', 'nahlásit', 'skydda', 'spärra',
  'det var inte jag', 'avvisa', 'avbryt', 'rapportera', 'beskyt', 'spær', 'det var ikke mig', 'afvis',
  'annuller', 'rapporter', 'sikre kontoen', 'sperr', 'det var ikke meg', 'avvis', 'suojaa', 'lukitse',
  'en ollut minä', 'hylkää', 'peruuta', 'ilmoita', 'güvenceye al', 'kilitle', 'bu ben değilim', 'reddet',
  'iptal', 'bildir', 'ασφαλίστε', 'κλείδωμα', 'δεν ήμουν εγώ', 'απόρριψη', 'ακύρωση', 'αναφορά', 'защитить',
  'заблокировать', 'это не я', 'отклонить', 'отменить', 'сообщить', 'захистити', 'заблокувати', 'це не я',
  'відхилити', 'скасувати', 'повідомити', 'אבטח', 'נעל', 'זה לא אני', 'דחה', 'ביטול', 'דווח', 'تأمين',
  'قفل', 'لست أنا', 'رفض', 'إلغاء', 'أبلغ', 'सुरक्षित करें', 'लॉक करें', 'यह मैं नहीं था', 'अस्वीकार', 'रद्द',
  'रिपोर्ट', 'ล็อก', 'รักษาความปลอดภัย', 'ไม่ใช่ฉัน', 'ปฏิเสธ', 'ยกเลิก', 'รายงาน', 'bảo mật tài khoản',
  'khóa tài khoản', 'không phải tôi', 'từ chối', 'hủy', 'báo cáo', 'amankan', 'kunci akun', 'bukan saya',
  'tolak', 'batalkan', 'laporkan', 'ロック', 'アカウントを保護', '私ではありません', '拒否', 'キャンセル', '報告',
  '锁定', '鎖定', '保护账户', '保護帳戶', '不是我', '拒绝', '拒絕', '取消', '举报', '舉報', '잠금', '계정 보호',
  '본인이 아닙니다', '거부', '취소', '신고',
  // Japanese / Chinese / Korean
  'プライバシー', 'ヘルプ', 'お問い合わせ', '利用規約', 'ご注文',
  '隐私', '隱私', '帮助', '幫助', '联系我们', '聯絡我們', '客服', '订单',
  '訂單', '개인정보', '고객센터', '도움말',
];

/** "If this wasn't you…" sentences: a link right after one is a safety exit, not the verification. */
const NEGATIONS = [
  'didn\'t', 'did not', 'didnt', 'wasn\'t', 'was not', 'not you', 'not me', 'don\'t recognize',
  'do not recognize', 'don\'t recognise', 'unauthorized', 'unauthorised', 'not expecting',
  'nicht du', 'nicht sie', 'warst du das nicht', 'waren sie das nicht', 'das nicht waren', 'das nicht warst',
  'das nicht selbst', 'nicht selbst veranlasst', 'nicht angefordert', 'nicht von dir',
  'nicht von ihnen', 'nicht veranlasst', 'niet aangevraagd', 'niet zelf', 'was jij dit niet', 'niet herkent',
  'pas vous', 'pas toi', 'n\'êtes pas', 'n\'étiez pas', 'n\'avez pas', 'pas à l\'origine',
  'no fuiste tú', 'no fuiste tu', 'no fue usted', 'no has solicitado', 'no solicitaste', 'no reconoces',
  'no lo solicitaste', 'não foi você', 'nao foi voce', 'não solicitou', 'não reconhece', 'non sei stato tu',
  'non hai richiesto', 'non riconosci',
  'to nie ty', 'to nie ty', 'nie prosiłeś', 'nebyli jste to vy', 'nežádali', 'ikke dig', 'ikke deg', 'inte du',
  'et sinä', 'siz değilseniz', 'siz yapmadıysanız', 'δεν ήσασταν εσείς', 'не вы', 'не запрашивали', 'не делали',
  'не совершали', 'не ви', 'לא אתה', 'לא את', 'لم تكن أنت', 'आप नहीं', 'ไม่ใช่คุณ', 'không phải bạn',
  'bukan anda', 'bukan kamu',
  '心当たりのない', '心当たりがない', '身に覚えのない', '身に覚えがない',
  '不是您本人', '非本人', '不是您', '不是你', '並非您本人', '非您本人', '본인이 아닌', '본인이 아니라면', '본인이 아니면', '본인이 아니신', '요청하지 않은', '요청하지 않았다면',
  '요청하지 않으셨다면', '변경하지 않았다면', '변경하지 않으셨다면', '시도하지 않았다면', '시도하지 않으셨다면',
];

/** Words that turn a preceding negation into a harmless disclaimer ("…didn't sign up? Ignore this."). */
const NEUTRALIZERS = [
  'ignore', 'disregard', 'otherwise', 'no action', 'no further action', 'nothing to do', 'keine weiteren',
  'ignorieren', 'ignoriere', 'ignorer', 'ignorez', 'ignora', 'ignorar', 'negeren', 'negeer', 'zignoruj',
  'ignorovat', 'ignorujte', 'ignorere', 'ignorera', 'huomiotta', 'dikkate almayın', 'yok sayın', 'αγνοήστε',
  'desconsidere', 'игнорируйте', 'проигнорируйте', 'ігноруйте', 'התעלם', 'تجاهل', 'अनदेखा', 'ไม่ต้องสนใจ',
  'bỏ qua', 'abaikan', '無視', '破棄', '忽略', '无视', '무시', '조치가 필요하지 않', '조치는 필요하지 않',
  'görmezden gel*', 'gerek yok*',
];

export const linkKeywords = new KeywordMatcher([
  [ACTION, ACTIONS],
  [SIGN_IN, SIGN_INS],
  [CLICK, CLICKS],
  [CODE_NOUN, CODE_NOUNS],
  [OTHER, OTHERS],
  [LIST, LISTS],
  [OBJECT, OBJECTS],
  [EXPIRY, EXPIRIES],
  [DONE, DONES],
  [ALTERNATIVE, ALTERNATIVES],
  [IF, IFS],
  [ALLOW, ALLOWS],
  [JOIN, JOINS],
  [INVITATION, INVITATIONS],
  [MEETING, MEETINGS],
  [TEAM, TEAMS],
  [PROMISED_MAIL, PROMISED_MAILS],
  [NEGATION, NEGATIONS],
  [NEUTRALIZER, NEUTRALIZERS],
]);

/**
 * Substrings of a URL's path and query that spell the act (URLs have no word boundaries), in the
 * same languages as the tables above, transliterated the way slugs are ("bekraeft", "dogrula").
 */
export const URL_ACTION = new RegExp([
  'verif', 'confirm', 'activat', 'activar', 'activer', 'activeer', 'ativar', 'attiva', 'aktivier', 'aktiver',
  'aktivoi', 'aktywuj', 'aktivac', 'aktivov', 'aktifk', 'bestaetig', 'bestätig', 'bevestig', 'bekraeft', 'bekraft',
  'bekræft', 'bekreft', 'bekrafta', 'bekräfta', 'vahvist', 'potvr', 'potwierd', 'overen', 'overit', 'dogrula',
  'doğrula', 'onayla', 'xac-nhan', 'xacnhan', 'xac-minh', 'xac-thuc', 'epivevai', 'epalithe', 'konfirm', 'podtver',
  'megerosit', 'validat', 'valider', 'approve', 'magic', 'magique', 'login', 'log-in', 'signin', 'sign-in', 'sign_in',
  'inlog', 'anmeld', 'zaloguj', 'logind', 'kirjaudu', 'prihlas', 'giris', 'dang-nhap', 'auth', 'reset',
  'password', 'passwort', 'wachtwoord', 'palavra-passe', 'passwd', 'token=', 'oobcode=', 'ticket=', 'action-token',
  // A parameter named key (not sharedKey=, apiKey=): the act's own key.
  '[?&]key=', 'otp', 'passwordless', 'register/complete', 'registration/complete', 'signup/complete', 'recover_account', 'recover-account', 'recoveraccount', 'account/recover',
  'unlock', 'entsperr', 'debloqu', 'desbloque', 'sblocc', 'ontgrendel', 'odblok', 'freigeb',
  'kinnita', 'apstiprin', 'patvirtin', 'aktyvuo', 'aktyvin', 'potrdi', 'aktivir', 'aktivizet', 'sahkan', 'thibitisha',
  'kumpirm',
].join('|'));
/** URL stems of joining or accepting an invitation: the act's URL in a mail that invites the reader. */
export const URL_JOIN = /invit|convite|einladung|uitnodig|zaprosz|pozvan|\/join\b|join[-_]|accept|dolacz|beitreten|rejoindre/;
/** URL stems that corroborate a sign-in anchor (a magic link, not a login page behind a tracker). */
/**
 * Words that say a code or link no longer works ("604211 no longer works", "(expired) <URL>"), in
 * the text right after a code or around a link. A condition before them ("before it has expired",
 * "if it expired") leaves the code alone: `voided()` checks that.
 */
const VOID = /no longer (?:works?|valid|active|be used)|(?:has|have|had) (?:expired|been used|been cancell?ed|been replaced|been switched off)|\b(?:is|was) (?:expired|invalid|cancell?ed|replaced)|\b(?:expired|superseded|invalidated|deactivated|cancell?ed)\b|nicht mehr gültig|ungültig|abgelaufen|n'est plus valide|a expiré|\bexpiré|ya no es válido|ha caducado|\bcaducad[oa]|\bexpirad[oa]|não é mais válid|non è più valid|\bscadut[oa]|niet meer geldig|\bverlopen|wygasł|nieważn|neplatn|истек|истёк|недействител|geçersiz|süresi doldu|ogiltig|ikke lenger gyldig|ikke længere gyldig|無効|失效|已过期|已過期|만료된/i;
const CONDITION = /\b(?:before|until|unless|if|when|after|once|bevor|bis|wenn|falls|avant|si|quand|antes|hasta|cuando|prima|finché|voor|tot|als|przed|zanim|jeśli|до|если)\b/i;

/** Does `text` (what follows a code, or a link's own words) say it no longer works? */
export function voided(text: string): boolean {
  const m = VOID.exec(text);
  return m !== null && !CONDITION.test(text.slice(0, m.index));
}

export const URL_SIGN_IN = /magic|magique|magico|mágico|login|log-in|signin|sign-in|sign_in|auth|token=|otp|passwordless|inlog|anmeld|zaloguj|logind|kirjaudu|prihlas|giris|dang-nhap/;
/**
 * Identity-provider action links: the URL alone says what it does, so no word next to it is needed
 * (Firebase-style `__/auth/action?mode=verifyEmail&oobCode=…`, Cognito-style `confirmUser`,
 * GoTrue-style `/auth/v1/verify?token=…&type=signup`, Keycloak action tokens, Kratos flows, B2C
 * invitations carrying an `id_token_hint`).
 */
export const IDP_ACTION = /[?&]oobcode=|[?&]id_token_hint=|[?&]mode=(?:verifyemail|resetpassword|signin|recoveremail|verifyandchangeemail)|confirmuser|confirmsignup|\/auth\/v\d\/verify|action-token|login-actions\/|\/self-service\/(?:verification|recovery)|\/self-service\/login(?!\/browser)|[?&]type=(?:signup|magiclink|recovery|invite|email_change)\b|\/magic[-_]?links?\//;
/** URL stems naming what a verification acts on (the address, the account, a sign-in, the password). */
export const URL_OBJECT = /mail|account|konto|compte|cuenta|conta|user|member|signup|sign-up|register|registr|subscri|optin|opt-in|password|passwort|wachtwoord|palavra-passe|login|signin|sign-in|auth|magic|session|identity|profile|device|invit|convite|einladung|uitnodig|zaprosz|pozvan|onboard|welcome|activat|aktiv|ativ|attiv|reset|verif|token=|oobcode/;
export const URL_LIST = /unsubscribe|unsub|optout|opt-out|opt_out|preference|abmelden|desinscri|baja|afmeld|uitschrijv|abbestell/;
export const URL_OTHER = /\/docs?\b|\/documentation|changelog|release-notes|unsubscribe|unsub|optout|opt-out|opt_out|preference|privacy|\/terms|legal|\/help|support|faq|contact|report|deny|\/block|cancel|logo|\/view|browser|getting-started|\/orders?\b|invoice|abmelden|desinscri|baja|\/lock|secure-account|secure_account|not-me|notme|wasnt-me|this-wasnt|\/webinar|\/events?\//;
/**
 * Whole-host match only (www/m allowed), so "id.x.example" is not X; the one-letter hosts only
 * with their real TLDs (x.com, t.co), since "x.example" is any site at all.
 */
export const SOCIAL_HOST = /^(?:www\.|m\.)?(?:(?:facebook|fb|twitter|instagram|linkedin|youtube|youtu|tiktok|pinterest|whatsapp|apps\.apple|play\.google|itunes\.apple)\.[a-z]+|x\.com|t\.co)$/;
